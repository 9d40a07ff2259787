"""Lambda TOKEN authorizer: API keys (one DynamoDB read) and JWT session tokens.

Raising "Unauthorized" is API Gateway's signal for a 401, rendered by the UNAUTHORIZED gateway response.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.auth.authorizer import allow_all_routes, authenticate
from webcapture.errors import Unauthorized
from webcapture.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        caller = authenticate(event.get("authorizationToken"))
    except Unauthorized as refusal:
        logger.info("token refused", extra={"reason": refusal.message})
        raise Exception("Unauthorized") from None
    return allow_all_routes(event["methodArn"], caller["userId"], caller)
