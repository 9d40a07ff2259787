"""The profile routes: POST and GET /v1/profiles, GET, PATCH and DELETE /v1/profiles/{id}, and
PUT /v1/profiles/{id}/state (docs/profiles.md). Free, and they take no concurrency slot."""

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, json_payload, request_body
from webcapture.edge.responses import answer
from webcapture.models.profiles import MAX_STATE_BYTES, ProfileCreate, ProfileRename, StorageState
from webcapture.observability import tracer
from webcapture.operations import manage_profiles
from webcapture.validation import validate_request

app = create_resolver()


@app.post("/v1/profiles")
@tracer.capture_method
def create() -> Response[str]:
    request = request_body(app, ProfileCreate)
    return answer(app, manage_profiles.create_profile(current_caller(app), request), 0, status=201)


@app.get("/v1/profiles")
@tracer.capture_method
def list_all() -> Response[str]:
    return answer(app, manage_profiles.list_profiles(current_caller(app)), 0)


@app.get("/v1/profiles/<profile_id>")
@tracer.capture_method
def get(profile_id: str) -> Response[str]:
    return answer(app, manage_profiles.get_profile(current_caller(app), profile_id), 0)


@app.patch("/v1/profiles/<profile_id>")
@tracer.capture_method
def rename(profile_id: str) -> Response[str]:
    request = request_body(app, ProfileRename)
    return answer(app, manage_profiles.rename_profile(current_caller(app), profile_id, request), 0)


@app.delete("/v1/profiles/<profile_id>")
@tracer.capture_method
def delete(profile_id: str) -> Response[str]:
    return answer(app, manage_profiles.delete_profile(current_caller(app), profile_id), 0)


@app.put("/v1/profiles/<profile_id>/state")
@tracer.capture_method
def put_state(profile_id: str) -> Response[str]:
    # Up to 1 MB (a storage state), where other bodies stop at 100 KB: 413 beyond.
    payload = json_payload(app, MAX_STATE_BYTES)
    state = validate_request(StorageState, payload)
    return answer(app, manage_profiles.import_state(current_caller(app), profile_id, state), 0)


lambda_handler = entry_point(app)
