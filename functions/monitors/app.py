"""The monitor routes: POST and GET /v1/monitors, GET, PATCH and DELETE /v1/monitors/{id}, POST
/v1/monitors/{id}/run and GET /v1/monitors/{id}/checks (docs/monitors.md). Free (a check costs its operation's
price), and they take no concurrency slot."""

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, json_payload
from webcapture.edge.responses import answer
from webcapture.observability import tracer
from webcapture.operations import manage_monitors

app = create_resolver()


@app.post("/v1/monitors")
@tracer.capture_method
def create() -> Response[str]:
    return answer(app, manage_monitors.create_monitor(current_caller(app), json_payload(app)), 0, status=201)


@app.get("/v1/monitors")
@tracer.capture_method
def list_all() -> Response[str]:
    return answer(app, manage_monitors.list_monitors(current_caller(app)), 0)


@app.get("/v1/monitors/<monitor_id>")
@tracer.capture_method
def get(monitor_id: str) -> Response[str]:
    return answer(app, manage_monitors.get_monitor(current_caller(app), monitor_id), 0)


@app.patch("/v1/monitors/<monitor_id>")
@tracer.capture_method
def update(monitor_id: str) -> Response[str]:
    return answer(app, manage_monitors.update_monitor(current_caller(app), monitor_id, json_payload(app)), 0)


@app.delete("/v1/monitors/<monitor_id>")
@tracer.capture_method
def delete(monitor_id: str) -> Response[str]:
    return answer(app, manage_monitors.delete_monitor(current_caller(app), monitor_id), 0)


@app.post("/v1/monitors/<monitor_id>/run")
@tracer.capture_method
def run(monitor_id: str) -> Response[str]:
    return answer(app, manage_monitors.run_monitor(current_caller(app), monitor_id), 0, status=202)


@app.get("/v1/monitors/<monitor_id>/checks")
@tracer.capture_method
def checks(monitor_id: str) -> Response[str]:
    event = app.current_event
    return answer(app, manage_monitors.list_checks(current_caller(app), monitor_id,
                                                   event.get_query_string_value("limit"),
                                                   event.get_query_string_value("cursor")), 0)


lambda_handler = entry_point(app)
