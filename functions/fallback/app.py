"""ANY on a known path with a method it doesn't serve: 405 (API Gateway routes only those here)."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.edge.requests import request_id_of
from webcapture.edge.responses import error_response
from webcapture.errors import MethodNotAllowed
from webcapture.observability import logger


@logger.inject_lambda_context
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    method = event.get("httpMethod", "")
    response = error_response(MethodNotAllowed(f"Method {method} is not allowed here"), request_id_of(event))
    return {"statusCode": response.status_code, "headers": response.headers, "body": response.body,
            "isBase64Encoded": False}
