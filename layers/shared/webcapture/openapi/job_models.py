"""The jobs routes' bodies and answers (docs/jobs.md#jobs), for the OpenAPI document.

The batch body is validated by webcapture.jobs.batch_request (each item as its endpoint's own model, with
issue paths that name the item); this model states the same shape and limits for readers and tools."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from webcapture.jobs.batch_request import ACCEPTED, EVENTS, MAX_ITEMS, MAX_METADATA_BYTES
from webcapture.openapi.answer_models import _Answer

JobOperation = Literal["screenshot", "links", "ai-extract", "markdown", "content", "pdf"]
WebhookEvent = Literal["job.completed", "job.failed", "job.cancelled", "item.completed"]
assert set(WebhookEvent.__args__) == set(EVENTS)  # type: ignore[attr-defined]
# What every 202 of a submit says, the first and each Idempotency-Key replay alike (docs/decisions.md).
AcceptedStatus = Literal["queued"]
assert AcceptedStatus.__args__ == (ACCEPTED,)  # type: ignore[attr-defined]


class WebhookRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    url: str = Field(description="Where events are POSTed; it passes the egress policy at submit and at "
                                 "every delivery", json_schema_extra={"format": "uri"})
    events: list[WebhookEvent] | None = Field(None, min_length=1,
                                              description="Default: job.completed, job.failed and "
                                                          "job.cancelled")
    metadata: dict[str, Any] | None = Field(
        None, description=f"Echoed in every event; at most {MAX_METADATA_BYTES} bytes as JSON")


class BatchRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    operation: JobOperation
    requests: list[dict[str, Any]] = Field(
        min_length=1, max_length=MAX_ITEMS,
        description="Request bodies of the operation's endpoint (validated as that endpoint's body; issue "
                    "paths start with [\"requests\", i]). Each may add `timeout` (ms, 1,000..120,000): the "
                    "item's own time budget. Screenshots and PDFs are always stored.")
    webhook: WebhookRequest | None = None


class BatchAcceptedData(_Answer):
    jobId: str
    status: AcceptedStatus = Field(description="Always queued, a replay too: GET statusUrl for the job's "
                                               "status now")
    total: int
    statusUrl: str = Field(description="GET it for the job's status and results")


class CrawlAcceptedData(_Answer):
    jobId: str
    status: AcceptedStatus = Field(description="Always queued, a replay too: GET statusUrl for the job's "
                                               "status now")
    total: int = Field(description="Pages recorded so far: the start page; it grows as links are found")
    statusUrl: str = Field(description="GET it for the crawl's status and its pages' results")


class JobResult(_Answer):
    index: int
    status: Literal["completed", "failed", "cancelled"]
    data: dict[str, Any] | None = Field(None, description=(
        "What the endpoint's synchronous JSON answer holds; a crawl's page: {url, depth, statusCode, "
        "markdown?, links?, html?, screenshot: {permanentUrl, fileId}?, json?}"))
    error: dict[str, Any] | None = Field(None, description="{code, message}; a crawl's page adds its url")


class WebhookDelivery(_Answer):
    eventId: str = Field(description="The event's id, its webhook-id header: the same on every attempt")
    type: str = Field(description="job.completed, job.failed, job.cancelled or item.completed")
    attempt: int = Field(description="1 for the first try, counting up with each retry")
    at: str = Field(description="When the attempt was made (ISO 8601, UTC)")
    ok: bool = Field(description="The receiver answered 2xx")
    status: int | None = Field(None, description="The receiver's HTTP status; none when it was not reached")
    error: str | None = Field(None, description="Why the attempt failed, when it did")


class JobWebhook(_Answer):
    url: str
    events: list[str]
    metadata: dict[str, Any]
    deliveries: list[WebhookDelivery] = Field(description="The last delivery attempts, oldest first")


class JobData(_Answer):
    jobId: str
    operation: JobOperation | Literal["crawl"]
    status: Literal["queued", "running", "cancelling", "completed", "failed", "cancelled"] = Field(
        description="cancelling: DELETE was called and running items are finishing. completed, failed and"
        " cancelled are final: completed + failed + cancelled == total and creditsCost never change again")
    total: int
    completed: int
    failed: int
    cancelled: int
    creditsCost: int = Field(description="Credits spent: the batch's reservation less every refund")
    createdAt: str
    updatedAt: str
    expiresAt: str
    results: list[JobResult] = Field(description="Finished items of this page, in index order")
    next: str | None = Field(description="The cursor of the next page; null only when no more results"
                             " exist yet (a page may hold fewer than `limit` when its results are large)")
    webhook: JobWebhook | None = None


class WebhookSecretData(_Answer):
    secret: str = Field(description="whsec_ + base64 of 32 random bytes (Standard Webhooks)")
