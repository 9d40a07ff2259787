"""`POST /v1/batch` (docs/jobs.md#jobs): validate every item, check the webhook URL against the egress policy,
create the job with its whole cost reserved (one transaction), then queue one message per item."""

from __future__ import annotations

import contextvars
import uuid
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.credits import cost_of
from webcapture.errors import NavigationFailed, NotFound, ServiceUnavailable, UrlNotAllowed
from webcapture.jobs import idempotency, job_store
from webcapture.jobs.batch_request import parse_batch
from webcapture.jobs.job_store import AlreadyExists, Job, NewJob, Outcome
from webcapture.jobs.work_queue import ItemMessage, send_items
from webcapture.observability import logger
from webcapture.profiles import store as profiles_store

_CHUNK = 10
# SendMessageBatch calls in flight at once: a 1,000-item batch is 100 calls, which one after another kept
# the submit's answer waiting on each round trip.
_PARALLEL_SENDS = 8


@dataclass(frozen=True)
class Submitted:
    job: Job
    repeated: bool  # an earlier submit with the same Idempotency-Key and body made it


def submit_batch(caller: Caller, payload: Any, idempotency_key: str | None) -> Submitted:
    batch = parse_batch(payload)
    once = submitted_once(caller, payload, idempotency_key)
    if once.earlier is not None:
        return Submitted(once.earlier, repeated=True)
    if batch.webhook is not None:
        check_webhook_url(batch.webhook.url)
    _check_profiles(caller, batch.requests)
    new = NewJob(
        job_id=str(uuid.uuid4()),
        caller=caller,
        operation=batch.operation.value,
        total=len(batch.requests),
        cost_each=cost_of(batch.operation),
        webhook=None if batch.webhook is None else batch.webhook.as_item(),
        idempotency_pk=once.record_pk,
        body_hash=once.payload_hash,
    )
    created = create_once(new, "batch")
    if created.repeated:
        return created
    job = created.job
    messages = [
        ItemMessage(
            job_id=job.job_id,
            index=i,
            user_id=caller.user_id,
            key_hash=caller.key_hash,
            key_id=caller.key_id,
            request=request,
            timeout_ms=batch.timeouts_ms[i],
        )
        for i, request in enumerate(batch.requests)
    ]
    unsent = _queue(job.operation, messages)
    if unsent:
        _abandon(job, unsent)
        raise ServiceUnavailable("The batch could not be queued; retry")
    return Submitted(job, repeated=False)


def _queue(operation: str, messages: list[ItemMessage]) -> list[int]:
    """Send every item, a few SendMessageBatch calls at once; the indexes that were not queued (none when
    all were). After a failure no further call starts."""
    chunks = [messages[start : start + _CHUNK] for start in range(0, len(messages), _CHUNK)]
    with ThreadPoolExecutor(_PARALLEL_SENDS) as pool:
        # Each call runs in a copy of this context: the request's deadline sets the AWS client's timeouts.
        sends = {pool.submit(contextvars.copy_context().run, send_items, operation, chunk): chunk
                 for chunk in chunks}
        _, pending = wait(sends, return_when=FIRST_EXCEPTION)
        for send in pending:
            send.cancel()
    failures = [send.exception() for send in sends if not send.cancelled() and send.exception() is not None]
    if failures:
        logger.error("queueing a batch failed; cancelling what was not queued", exc_info=failures[0])
    return sorted(message.index for send, chunk in sends.items()
                  if send.cancelled() or send.exception() is not None for message in chunk)


def _check_profiles(caller: Caller, requests: tuple[dict[str, Any], ...]) -> None:
    """Every profile the items name is the caller's: 404 NOT_FOUND before any job or credit otherwise."""
    named = {str(r["profile"]["id"]) for r in requests if isinstance(r.get("profile"), dict)}
    for profile_id in sorted(named):
        profiles_store.owned(caller.user_id, profile_id)


@dataclass(frozen=True)
class Once:
    """A submit's Idempotency-Key (docs/jobs.md#jobs): its record's key and the body's hash (None and ""
    without a key), and the job an earlier submit of the same key and body made, if any."""

    record_pk: str | None
    payload_hash: str
    earlier: Job | None


def submitted_once(caller: Caller, payload: Any, idempotency_key: str | None) -> Once:
    key = idempotency.checked_key(idempotency_key)
    if key is None:
        return Once(None, "", None)
    record_pk, payload_hash = idempotency.record_key(caller.user_id, key), idempotency.body_hash(payload)
    return Once(record_pk, payload_hash, earlier_job(record_pk, payload_hash))


def create_once(new: NewJob, what: str) -> Submitted:
    """Write the new job; when a submit of the same Idempotency-Key got there first, answer its job."""
    try:
        return Submitted(job_store.create_job(new), repeated=False)
    except AlreadyExists:
        assert new.idempotency_pk is not None
        earlier = earlier_job(new.idempotency_pk, new.body_hash)
        if earlier is None:
            raise ServiceUnavailable(f"The {what} could not be created; retry") from None
        return Submitted(earlier, repeated=True)


def check_webhook_url(url: str) -> None:
    """400 URL_NOT_ALLOWED, before anything is written, for a webhook the egress policy refuses, or whose
    host does not resolve (no delivery could ever reach it)."""
    try:
        egress.check_target(url)
    except NavigationFailed:
        raise UrlNotAllowed("The webhook URL's host could not be resolved") from None


def earlier_job(record_pk: str, payload_hash: str) -> Job | None:
    record = job_store.idempotency_record(record_pk)
    if record is None:
        return None
    job = job_store.get_job(idempotency.same_job(record, payload_hash))
    if job is None:
        raise NotFound("The job of this Idempotency-Key has expired")
    return job


def _abandon(job: Job, unsent: list[int]) -> None:
    """Cancel the job: the items that were queued finish as cancelled when they come up; the rest are
    finished (and refunded) here."""
    job_store.cancel_job(job.job_id)
    job.status = "cancelling"
    for index in unsent:
        token = str(uuid.uuid4())
        if job_store.claim_item(job.job_id, index, token, 60_000) == "claimed":
            job_store.finish_item(
                job,
                index,
                token,
                Outcome("cancelled", error={"code": "CANCELLED", "message": "The item could not be queued"}),
            )
    job_store.settle(job.job_id)
