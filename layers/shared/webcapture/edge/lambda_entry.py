"""The Lambda handler of every function: its HTTP requests through the resolver, and, for a function with
an SQS event source, the messages of that source."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.observability import logger, metrics, tracer

LambdaHandler = Callable[[dict[str, Any], LambdaContext], dict[str, Any]]


class QueueWork(Protocol):
    """What a function runs from its SQS event source: a batch's items (jobs.item_worker.ItemRunner) or a
    crawl's pages (site.crawl_worker.CrawlWorker)."""

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]: ...


def is_sqs_event(event: dict[str, Any]) -> bool:
    records = event.get("Records")
    return isinstance(records, list) and bool(records) and records[0].get("eventSource") == "aws:sqs"


def entry_point(app: APIGatewayRestResolver, items: QueueWork | None = None) -> LambdaHandler:
    """The Lambda handler: the resolver, with the request logged, traced and its metrics flushed. With
    `items`, the same function also runs job items from its SQS event source (CONTRACT 17)."""

    @logger.inject_lambda_context
    @tracer.capture_lambda_handler
    @metrics.log_metrics
    def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        if items is not None and is_sqs_event(event):
            remaining = getattr(context, "get_remaining_time_in_millis", None)
            return items.handle(event, lambda: float(remaining()) if callable(remaining) else 900_000.0)
        return app.resolve(event, context)

    return lambda_handler
