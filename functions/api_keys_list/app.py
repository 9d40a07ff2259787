"""GET /v1/api-keys/list: the caller's API keys."""

from aws_lambda_powertools.event_handler import Response

from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller
from webcapture.edge.responses import success
from webcapture.observability import tracer
from webcapture.operations.list_api_keys import list_api_keys

app = create_resolver()


@app.get("/v1/api-keys/list")
@tracer.capture_method
def list_keys() -> Response[str]:
    return success(app, list_api_keys(current_caller(app)), Operation.API_KEYS_LIST)


lambda_handler = entry_point(app)
