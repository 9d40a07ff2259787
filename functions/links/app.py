"""POST /v1/web/links: the links of a rendered page."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.api import create_resolver, current_caller, request_body, success
from webcapture.credits import Operation
from webcapture.models.requests import LinksRequest
from webcapture.observability import logger, metrics, tracer
from webcapture.operations.collect_page_links import collect_page_links

app = create_resolver()


@app.post("/v1/web/links")
@tracer.capture_method
def links() -> Response[str]:
    request = request_body(app, LinksRequest)
    return success(app, collect_page_links(current_caller(app), request), Operation.LINKS)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
