"""One SQS delivery of a job's item, from the record to its one result: what a batch's items
(webcapture.jobs.item_worker) and a crawl's pages (webcapture.site.crawl_worker) have in common.

The item is claimed before it runs (webcapture.jobs.job_store), so a second delivery of the same message
(a killed worker, a visibility timeout) finds it done, or claimed by a live worker, and never runs it
twice. Its result, the job's counters and its refund are one transaction. What must run later gives its
claim back: an item that has to wait (its key's `maxConcurrency` or its host is busy) is sent back with
a delay and its record acknowledged, so a job never fails an item with a 429; AWS trouble reports the
record failed (`batchItemFailures`, the event source's partial batch response), to be delivered again.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from webcapture import aws
from webcapture.errors import ApiError, ConcurrencyLimitExceeded, RequestValidationError, ServiceUnavailable
from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.job_store import Job, Outcome
from webcapture.jobs.sqs_records import handle_each_record
from webcapture.observability import logger, metrics
from webcapture.settings import get_settings


class WaitInQueue(Exception):
    """The item cannot run yet: it goes back to the queue, delayed by `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


class RetryLater(Exception):
    """AWS trouble: the record is reported failed and delivered again."""


@dataclass(frozen=True)
class ItemKind:
    """How one kind of job names, counts and settles its items."""

    job_noun: str  # "job", "crawl": in a cancelled item's message and the logs
    item_noun: str  # "item", "page": in a given-up item's message and the logs
    metric: str  # the prefix of the per-status count, e.g. "JobItem" -> "JobItem.completed"
    settle: Callable[[str], Job | None]  # the job's final status once every item has its result


@dataclass(frozen=True)
class Delivery:
    """One record of an item, read by the worker of its kind."""

    job_id: str
    index: int
    receives: int  # SQS's ApproximateReceiveCount
    hold_ms: int  # how long the claim holds: the run's budget and what follows it
    send_later: Callable[[float], None]  # the record's message sent back, delayed by so many seconds
    # Fields every error of this item's outcome carries (a crawl's page names its URL).
    error_fields: Mapping[str, str] = field(default_factory=dict)


def handle_records(
    event: dict[str, Any], kind: ItemKind, handle_record: Callable[[dict[str, Any]], None]
) -> dict[str, Any]:
    """Each record of the SQS event, with the ones to deliver again as the partial batch response."""
    return handle_each_record(event, handle_record, f"{kind.job_noun} {kind.item_noun}")


def receive_count(record: dict[str, Any]) -> int:
    return int((record.get("attributes") or {}).get("ApproximateReceiveCount", "1"))


def deliver(
    delivery: Delivery,
    kind: ItemKind,
    run: Callable[[Job], Outcome],
    before: Callable[[bool], None] = lambda _again: None,
) -> None:
    """Claim the item, run it (or answer it cancelled, or given up after too many receives) and finish it
    once. `before` runs first on every claimed delivery, whatever happens to the item then, told whether
    an earlier claim of the item may have done part of its work (job_store.take_item: it counts claims,
    where SQS's receive count starts again on a message sent back). The job is read once, after the
    claim: an item claimed after its job began cancelling never runs."""
    job_id, index = delivery.job_id, delivery.index
    settings = get_settings()
    token = str(uuid.uuid4())
    claim, claims = job_store.take_item(job_id, index, token, delivery.hold_ms)
    if claim == "done":
        return
    if claim == "busy":  # another delivery runs it now; look again once it should be done
        delivery.send_later(settings.job_busy_delay_s)
        return
    try:
        job = job_store.get_job(job_id)
        if job is None:  # expired (7 days): nothing to run, nothing to answer
            # The claim is released, not deleted (the functions are granted no DeleteItem on the jobs
            # table); the item it wrote expires with its TTL like every item of a job.
            job_store.release_claim(job_id, index, token)
            return
        before(claims > 1)
        outcome = _outcome(job, delivery, kind, run)
    except WaitInQueue as wait:
        # Raised before any of the item's work (a busy host or key): this claim did nothing.
        job_store.release_claim(job_id, index, token, unused=True)
        delivery.send_later(wait.seconds)
        return
    except Exception:
        job_store.release_claim(job_id, index, token)
        raise
    if outcome.error is not None and delivery.error_fields:
        outcome = replace(outcome, error={**outcome.error, **delivery.error_fields})
    if job_store.finish_item(job, index, token, outcome):
        metrics.add_metric(name=f"{kind.metric}.{outcome.status}", unit="Count", value=1)
        webhook_events.item_finished(job, index, outcome)
        settled = kind.settle(job.job_id)
        if settled is not None:
            webhook_events.job_finished(settled)


def _outcome(job: Job, delivery: Delivery, kind: ItemKind, run: Callable[[Job], Outcome]) -> Outcome:
    if job.status in job_store.STOPPING:
        cancelled = f"The {kind.job_noun} was cancelled"
        return Outcome("cancelled", error={"code": "CANCELLED", "message": cancelled})
    if delivery.receives > get_settings().job_max_receives:
        return Outcome("failed", error={"code": "INTERNAL_SERVER_ERROR",
                                        "message": f"The {kind.item_noun} failed on every attempt"})
    if job.status == "queued":
        job_store.mark_running(job.job_id)
    return run(job)


def failed(error: Exception, kind: ItemKind) -> Outcome:
    """The outcome of a run that raised `error` (call it in the `except` block: it logs the traceback).
    What may pass raises instead: a busy key waits in the queue, AWS trouble is delivered again."""
    if isinstance(error, ConcurrencyLimitExceeded):
        raise WaitInQueue(get_settings().job_busy_delay_s) from None
    if isinstance(error, ServiceUnavailable):
        raise RetryLater from error
    if isinstance(error, ApiError):
        # An error marked not refundable is work done (its message says the item is charged).
        return Outcome("failed", error={"code": error.code, "message": error.message},
                       charged=not error.refundable)
    if isinstance(error, RequestValidationError):  # validated at submit: only a changed model gets here
        return Outcome("failed", error={"code": "VALIDATION_ERROR", "message": str(error)})
    if aws.unavailable(error) is not None:
        raise RetryLater from error
    logger.exception(f"{kind.job_noun} {kind.item_noun} failed")
    return Outcome("failed", error={"code": "INTERNAL_SERVER_ERROR", "message": "Internal server error"})
