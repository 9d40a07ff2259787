"""A job's items, run by the function that serves their operation (its SQS event source, CONTRACT 17).

Each record is one item. It is claimed before it runs (webcapture.jobs.job_store), so a second delivery
of the same message (a killed worker, a visibility timeout) finds it done, or claimed by a live worker,
and never runs it twice; its result, counters and refund are one transaction. The answer lists the
records to deliver again (`batchItemFailures`, the event source's partial batch response): only the ones
that met AWS trouble. An item whose key has every `maxConcurrency` slot taken waits: it is sent back with
a delay and its record acknowledged, so a job never fails an item with a 429.

An item with `maxAge` shares the cache entry of the synchronous request it answers as (CONTRACT 19): a
fresh entry is its result, looked up before any slot or browser, and its reserved credit is refunded with
the result; a miss stores its result as the synchronous endpoint would.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from webcapture import aws, cache, metering, request_scope
from webcapture.auth.caller import Caller
from webcapture.credits import Operation
from webcapture.errors import ApiError, ConcurrencyLimitExceeded, RequestValidationError, ServiceUnavailable
from webcapture.jobs import job_store, webhook_events
from webcapture.jobs.batch_request import REQUEST_MODELS
from webcapture.jobs.job_store import Job, Outcome
from webcapture.jobs.work_queue import ItemMessage, send_item_later
from webcapture.models.page_control import PageControl
from webcapture.observability import logger, metrics
from webcapture.operations.file_answers import FileAnswer
from webcapture.settings import get_settings
from webcapture.validation import validate_request

# Past the item's own budget: storing its result, and Lambda's own end.
CLAIM_GRACE_MS = 10_000


def _as_sent(request: BaseModel) -> BaseModel:
    return request


@dataclass(frozen=True)
class ItemRunner:
    """What a function does with one item of its operation: the validated request in, the data of its
    synchronous JSON answer out.

    `sync_request` and `form` name that synchronous answer for the cache: the request as the endpoint
    would have received it and its answer form (webcapture.cached_responses.file_form). A file endpoint's
    item is its stored JSON form; the other endpoints answer JSON to the request as sent.
    """

    operation: Operation
    run: Callable[[Caller, Any], dict[str, Any]]
    sync_request: Callable[[Any], BaseModel] = _as_sent
    form: str = ""

    def cache_key(self, caller: Caller, request: PageControl) -> cache.CacheKey | None:
        if request.maxAge <= 0:
            return None  # maxAge 0 neither reads nor writes the cache
        return cache.cache_key(caller.user_id, self.operation.value, self.sync_request(request), self.form)

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]:
        """The SQS event's items (a function that runs none never reaches the job store and queues)."""
        return handle_records(event, remaining_ms, self)


class _Wait(Exception):
    """The key's slots are all taken: the item goes back to the queue, delayed."""


class _Retry(Exception):
    """AWS trouble: the record is reported failed and delivered again."""


def handle_records(
    event: dict[str, Any],
    remaining_ms: Callable[[], float],
    runner: ItemRunner,
) -> dict[str, Any]:
    failures: list[dict[str, str]] = []
    for record in event.get("Records", []):
        try:
            _handle_record(record, remaining_ms, runner)
        except Exception as error:
            # Delivered again after the visibility timeout; the claim and the transaction keep it to one run.
            logger.warning("job item delivered again later", extra={"error": repr(error)})
            failures.append({"itemIdentifier": record["messageId"]})
    return {"batchItemFailures": failures}


def _handle_record(record: dict[str, Any], remaining_ms: Callable[[], float], runner: ItemRunner) -> None:
    message = ItemMessage.from_json(record["body"])
    receives = int((record.get("attributes") or {}).get("ApproximateReceiveCount", "1"))
    job = job_store.get_job(message.job_id)
    if job is None:
        return  # expired (7 days): nothing to run, nothing to answer
    settings = get_settings()
    budget_ms = min(
        float(message.timeout_ms or settings.request_budget_ms),
        remaining_ms() - request_scope.ANSWER_MARGIN_MS,
    )
    token = str(uuid.uuid4())
    claim = job_store.claim_item(job.job_id, message.index, token, int(budget_ms) + CLAIM_GRACE_MS)
    if claim == "done":
        return
    if claim == "busy":  # another delivery runs it now; look again once it should be done
        send_item_later(runner.operation, record["body"], settings.job_busy_delay_s)
        return
    if job.status == "cancelled":
        outcome = Outcome("cancelled", error={"code": "CANCELLED", "message": "The job was cancelled"})
    elif receives > settings.job_max_receives:
        outcome = Outcome(
            "failed", error={"code": "INTERNAL_SERVER_ERROR", "message": "The item failed on every attempt"}
        )
    else:
        if job.status == "queued":
            job_store.mark_running(job.job_id)
        try:
            outcome = _run(job, message, runner, budget_ms)
        except _Wait:
            job_store.release_claim(job.job_id, message.index, token)
            send_item_later(runner.operation, record["body"], settings.job_busy_delay_s)
            return
        except _Retry:
            job_store.release_claim(job.job_id, message.index, token)
            raise
    if job_store.finish_item(job, message.index, token, outcome):
        metrics.add_metric(name=f"JobItem.{outcome.status}", unit="Count", value=1)
        webhook_events.item_finished(job, message.index, outcome)
        settled = job_store.settle(job.job_id)
        if settled is not None:
            webhook_events.job_finished(settled)


def _caller(job: Job, message: ItemMessage) -> Caller:
    if message.key_hash is None:
        return Caller(user_id=message.user_id, kind="session")
    return Caller(
        user_id=message.user_id,
        kind="api_key",
        key_id=message.key_id,
        key_hash=message.key_hash,
        limited=job.charged,
    )


def _run(job: Job, message: ItemMessage, runner: ItemRunner, budget_ms: float) -> Outcome:
    model: type[PageControl] = REQUEST_MODELS[runner.operation]
    scope = request_scope.RequestScope(str(uuid.uuid4()), time.monotonic() + budget_ms / 1000, None)
    with request_scope.scoped(scope), metering.prepaid():
        try:
            request = validate_request(model, message.request)
            caller = _caller(job, message)
            key = runner.cache_key(caller, request)
            hit = cache.lookup(key, request.maxAge) if key is not None else None
            if hit is not None and hit.answer.data is not None:
                metrics.add_metric(name="JobItem.cached", unit="Count", value=1)
                return Outcome("completed", data=hit.answer.data, cached=True)
            data = runner.run(caller, request)
        except ConcurrencyLimitExceeded:
            raise _Wait from None
        except ServiceUnavailable as error:
            raise _Retry from error
        except ApiError as error:
            return Outcome("failed", error={"code": error.code, "message": error.message})
        except RequestValidationError as error:  # validated at submit: only a changed model gets here
            return Outcome("failed", error={"code": "VALIDATION_ERROR", "message": str(error)})
        except Exception as error:
            if aws.unavailable(error) is not None:
                raise _Retry from error
            logger.exception("job item failed")
            return Outcome(
                "failed", error={"code": "INTERNAL_SERVER_ERROR", "message": "Internal server error"}
            )
    if key is not None:
        cache.store(key, FileAnswer("json", data=data))  # never fails the item
    return Outcome("completed", data=data)
