"""A job's items, run by the function that serves their operation (its SQS event source, docs/jobs.md#jobs).

Each record is one item, claimed, run once and finished as webcapture.jobs.item_delivery says: an item
whose key has every `maxConcurrency` slot taken waits in the queue, and only AWS trouble has its record
delivered again.

An item with `maxAge` shares the cache entry of the synchronous request it answers as
(docs/cache-and-signed-links.md#cache-and-signed-links): a fresh entry is its result, looked up before any
slot or browser, and its reserved credit is refunded with the result; a miss stores its result as the
synchronous endpoint would.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from webcapture import cache, metering, request_scope
from webcapture.answer_forms import FileAnswer
from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.credits import Operation
from webcapture.jobs import item_delivery, job_store
from webcapture.jobs.batch_request import REQUEST_MODELS
from webcapture.jobs.item_delivery import Delivery, ItemKind, deliver, failed, receive_count
from webcapture.jobs.job_store import Job, Outcome
from webcapture.jobs.work_queue import ItemMessage, send_item_later
from webcapture.models.page_control import PageControl
from webcapture.observability import metrics
from webcapture.profiles import sessions
from webcapture.profiles.sessions import ProfileUse
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

    def cache_key(self, caller: Caller, request: PageControl,
                  use: ProfileUse | None = None) -> cache.CacheKey | None:
        # maxAge 0 neither reads nor writes the cache; nor does a request that types text or saves a
        # profile (webcapture.cached_responses.answer_cache_key).
        if request.maxAge <= 0 or cache.holds_secrets(request) or (use is not None and use.save):
            return None
        version = use.profile.version if use is not None else None
        return cache.cache_key(caller.user_id, self.operation.value, self.sync_request(request), self.form,
                               version)

    def handle(self, event: dict[str, Any], remaining_ms: Callable[[], float]) -> dict[str, Any]:
        """The SQS event's items (a function that runs none never reaches the job store and queues)."""
        return handle_records(event, remaining_ms, self)


BATCH_ITEM = ItemKind(job_noun="job", item_noun="item", metric="JobItem", settle=job_store.settle)


def handle_records(
    event: dict[str, Any],
    remaining_ms: Callable[[], float],
    runner: ItemRunner,
) -> dict[str, Any]:
    return item_delivery.handle_records(
        event, BATCH_ITEM, lambda record: _handle_record(record, remaining_ms, runner)
    )


def _handle_record(record: dict[str, Any], remaining_ms: Callable[[], float], runner: ItemRunner) -> None:
    run_item(record["body"], receive_count(record), remaining_ms, runner, BATCH_ITEM)


def run_item(body: str, receives: int, remaining_ms: Callable[[], float], runner: ItemRunner,
             kind: ItemKind) -> None:
    """One item message (`body`, an ItemMessage's JSON, sent back as it is when the item must wait): claimed,
    run and finished as `kind` says (a monitor's check settles as a check, webcapture.monitors)."""
    message = ItemMessage.from_json(body)
    budget_ms = min(
        float(message.timeout_ms or get_settings().request_budget_ms),
        remaining_ms() - request_scope.ANSWER_MARGIN_MS,
    )
    delivery = Delivery(
        message.job_id, message.index, receives, hold_ms=int(budget_ms) + CLAIM_GRACE_MS,
        send_later=lambda seconds: send_item_later(runner.operation, body, seconds),
    )
    deliver(delivery, kind, lambda job: _run(job, message, runner, budget_ms))


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
            # A profile deleted since the batch was submitted: the item fails NOT_FOUND, refunded.
            use = sessions.open_profile(caller, request.profile)
            key = runner.cache_key(caller, request, use)
            hit = cache.lookup(key, request.maxAge) if key is not None else None
            if hit is not None and hit.answer.data is not None:
                metrics.add_metric(name="JobItem.cached", unit="Count", value=1)
                return Outcome("completed", data=hit.answer.data, cached=True)
            with sessions.using(use):
                data = runner.run(caller, request)
        except Exception as error:
            return failed(error, BATCH_ITEM)
    if key is not None:
        cache.store(key, FileAnswer("json", data=data))  # never fails the item
    if (warning := sessions.finish(use)) is not None:
        data = with_warnings(data, [warning])
    return Outcome("completed", data=data)
