"""GET /v1/api-keys/list: the caller's API keys."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.api import create_resolver, current_caller, success
from webcapture.credits import Operation
from webcapture.observability import logger, metrics, tracer
from webcapture.operations.list_api_keys import list_api_keys

app = create_resolver()


@app.get("/v1/api-keys/list")
@tracer.capture_method
def list_keys() -> Response[str]:
    return success(app, list_api_keys(current_caller(app)), Operation.API_KEYS_LIST)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
