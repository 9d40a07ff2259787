"""The records of one SQS event, each handled on its own: the ones whose handling raised are reported as
the event source's partial batch response (`batchItemFailures`, with ReportBatchItemFailures), so SQS
delivers just them again after the visibility timeout.

Powertools' BatchProcessor does the bookkeeping. `raise_on_entire_batch_failure=False`: the functions read
one record per invocation (BatchSize 1), so every failure is an "entire batch" failure, and raising would
turn a record to deliver again into a function error (the Errors alarm, and no partial response).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord

from webcapture.observability import logger


def handle_each_record(event: dict[str, Any], handle_record: Callable[[dict[str, Any]], None],
                       what: str) -> dict[str, Any]:
    """`handle_record` for each record (as the event carries it); `what` names a record in the log line of
    one to deliver again."""

    def handle(record: SQSRecord) -> None:
        try:
            handle_record(record.raw_event)
        except Exception as error:
            # Delivered again after the visibility timeout; what the handler claimed keeps it to one run.
            logger.warning(f"{what} delivered again later", extra={"error": repr(error)})
            raise

    processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
    return dict(process_partial_response(event, handle, processor))
