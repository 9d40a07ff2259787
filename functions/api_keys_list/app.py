"""GET /v1/api-keys/list: the caller's API keys."""

from aws_lambda_powertools.event_handler import Response

from webcapture.api import create_resolver, current_caller, entry_point, success
from webcapture.credits import Operation
from webcapture.observability import tracer
from webcapture.operations.list_api_keys import list_api_keys

app = create_resolver()


@app.get("/v1/api-keys/list")
@tracer.capture_method
def list_keys() -> Response[str]:
    return success(app, list_api_keys(current_caller(app)), Operation.API_KEYS_LIST)


lambda_handler = entry_point(app)
