"""The webhooks queue's consumer: delivers job events, signed (Standard Webhooks), retried as delayed
messages. The only function that carries the `standardwebhooks` package."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.jobs.webhook_dispatch import handle_records
from webcapture.observability import logger, metrics, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle_records(event)
