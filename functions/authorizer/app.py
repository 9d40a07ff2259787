"""Lambda TOKEN authorizer: API keys (one DynamoDB read) and JWT session tokens.

A refused token gets a Deny answer carrying the refusal's message: API Gateway renders it with the
ACCESS_DENIED gateway response, as a 401 in the contract's envelope (template.yaml). Raising "Unauthorized"
instead would give the UNAUTHORIZED response, whose message is fixed and could not say which case it is.
"""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.auth.authorizer import allow_all_routes, authenticate, deny_all_routes
from webcapture.errors import Unauthorized
from webcapture.observability import logger, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        caller = authenticate(event.get("authorizationToken"))
    except Unauthorized as refusal:
        logger.info("token refused", extra={"reason": refusal.message})
        return deny_all_routes(event["methodArn"], refusal.message)
    return allow_all_routes(event["methodArn"], caller["userId"], caller)
