"""POST /v1/files/delete: delete one of the caller's stored files."""

from typing import Any

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.api import create_resolver, current_caller, request_body, success
from webcapture.credits import Operation
from webcapture.models.requests import FileDeleteRequest
from webcapture.observability import logger, metrics, tracer
from webcapture.operations.delete_file import delete_file

app = create_resolver()


@app.post("/v1/files/delete")
@tracer.capture_method
def delete() -> Response[str]:
    request = request_body(app, FileDeleteRequest)
    return success(app, delete_file(current_caller(app), request), Operation.FILES_DELETE)


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)
