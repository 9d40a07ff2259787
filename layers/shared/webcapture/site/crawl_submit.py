"""`POST /v1/web/crawl` (docs/crawl-and-map.md#crawl-and-map): validate, refuse a start URL the egress policy
refuses (400
`URL_NOT_ALLOWED`, before anything is written or reserved), create the job with `limit x cost` reserved
and its start page recorded (one transaction), then queue the start page.

The sitemaps are read by the start page's worker, not here: a sitemap lists up to 50,000 URLs, and
recording thousands of pages does not fit the API's 29 s, where the worker has two minutes and, if it
dies, its message comes back.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from webcapture import egress
from webcapture.auth.caller import Caller
from webcapture.errors import ServiceUnavailable, UrlNotAllowed
from webcapture.jobs import job_store
from webcapture.jobs.batch_request import DEFAULT_EVENTS
from webcapture.jobs.job_store import RETENTION, NewJob, Outcome
from webcapture.jobs.submit import Submitted, check_webhook_url, create_once, submitted_once
from webcapture.models.site_requests import CrawlRequest
from webcapture.observability import logger
from webcapture.profiles import store as profiles_store
from webcapture.site.canonical_urls import canonical_url
from webcapture.site.crawl_changes import check_since
from webcapture.site.crawl_credits import settle_crawl
from webcapture.site.crawl_extract import check_json_format
from webcapture.site.crawl_messages import PageMessage, send_pages
from webcapture.site.crawl_store import job_pk, url_sk
from webcapture.validation import validate_request

OPERATION = "crawl"


def _webhook(request: CrawlRequest) -> dict[str, Any] | None:
    hook = request.webhook
    if hook is None:
        return None
    return {"url": hook.url, "events": list(hook.events or DEFAULT_EVENTS), "metadata": hook.metadata or {}}


def submit_crawl(caller: Caller, payload: Any, idempotency_key: str | None) -> Submitted:
    request = validate_request(CrawlRequest, payload)
    check_json_format(request)
    once = submitted_once(caller, payload, idempotency_key)
    if once.earlier is not None:
        return Submitted(once.earlier, repeated=True)
    start = canonical_url(request.url, drop_query=request.ignoreQueryParameters)
    if start is None:
        raise UrlNotAllowed("The URL cannot be crawled: it is not an http(s) URL with a valid host, or it is "
                            "longer than 2,048 characters")
    egress.check_target(start)  # refused: 400 URL_NOT_ALLOWED, no job and no credit taken
    if request.profile is not None:  # another user's or a deleted profile: 404, no job, no credit
        profiles_store.owned(caller.user_id, request.profile.id)
    if request.since is not None:
        check_since(request.since, caller.user_id)  # 404 NOT_FOUND, nothing reserved
    if request.webhook is not None:
        check_webhook_url(request.webhook.url)
    job_id = str(uuid.uuid4())
    start_item = {"pk": job_pk(job_id), "sk": url_sk(start), "url": start, "depth": 0, "index": 0,
                  "parent": -1, "ttl": int(time.time() + RETENTION.total_seconds())}
    new = NewJob(job_id=job_id, caller=caller, operation=OPERATION, total=1, cost_each=request.page_cost,
                 webhook=_webhook(request), idempotency_pk=once.record_pk, body_hash=once.payload_hash,
                 reserve=request.reserved_credits, first_items=(start_item,), since=request.since)
    created = create_once(new, "crawl")
    if created.repeated:
        return created
    job = created.job
    message = PageMessage(job_id=job_id, index=0, url=start, depth=0, user_id=caller.user_id,
                          key_hash=caller.key_hash, key_id=caller.key_id,
                          request=request.model_dump(mode="json", exclude_unset=True))
    try:
        send_pages([message])
    except Exception:
        logger.exception("queueing a crawl's start page failed; cancelling it")
        _abandon(job_id)
        raise ServiceUnavailable("The crawl could not be queued; retry") from None
    return Submitted(job, repeated=False)


def _abandon(job_id: str) -> None:
    """The start page could not be queued: the crawl ends cancelled, everything given back."""
    job_store.cancel_job(job_id)
    token = str(uuid.uuid4())
    if job_store.claim_item(job_id, 0, token, 60_000) == "claimed":
        job = job_store.get_job(job_id)
        if job is not None:
            job_store.finish_item(job, 0, token, Outcome(
                "cancelled", error={"code": "CANCELLED", "message": "The crawl could not be queued"}))
    settle_crawl(job_id)
