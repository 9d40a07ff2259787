"""`GET /v1/jobs/{jobId}` and `DELETE /v1/jobs/{jobId}` (docs/jobs.md#jobs): a job as its owner sees it, its
results a page at a time (`limit` 1..100, default 50; `cursor` from the last page's `next`)."""

from __future__ import annotations

import base64
import binascii
import uuid
from typing import Any

from webcapture.auth.caller import Caller
from webcapture.errors import NotFound, RequestValidationError
from webcapture.jobs import job_store
from webcapture.jobs.job_store import Job

DEFAULT_LIMIT = 50
MAX_LIMIT = 100


def owned_job(caller: Caller, job_id: str) -> Job:
    """The caller's job; another user's job and an unknown id are the same 404."""
    try:
        uuid.UUID(job_id)
    except ValueError:
        raise NotFound("Job not found") from None
    job = job_store.get_job(job_id)
    if job is None or job.user_id != caller.user_id:
        raise NotFound("Job not found")
    return job


def page_limit(raw: str | None) -> int:
    """A page's `limit` query value: 1..100, default 50 (jobs' results and monitors' checks alike)."""
    if raw is None:
        return DEFAULT_LIMIT
    if not raw.isdigit():
        raise RequestValidationError(
            [
                {
                    "code": "invalid_type",
                    "expected": "integer",
                    "received": "string",
                    "path": ["limit"],
                    "message": "Expected integer, received string",
                }
            ]
        )
    value = int(raw)
    if value < 1:
        raise RequestValidationError(
            [
                {
                    "code": "too_small",
                    "minimum": 1,
                    "inclusive": True,
                    "type": "number",
                    "path": ["limit"],
                    "message": "Number must be greater than or equal to 1",
                }
            ]
        )
    if value > MAX_LIMIT:
        raise RequestValidationError(
            [
                {
                    "code": "too_big",
                    "maximum": MAX_LIMIT,
                    "inclusive": True,
                    "type": "number",
                    "path": ["limit"],
                    "message": f"Number must be less than or equal to {MAX_LIMIT}",
                }
            ]
        )
    return value


def encode_cursor(job_id: str, after: int) -> str:
    return base64.urlsafe_b64encode(f"{job_id}:{after}".encode()).decode().rstrip("=")


def _after(job: Job, cursor: str | None) -> int:
    """The index the page starts after (-1: from the first); 422 for a cursor not made for this job."""
    if cursor is None:
        return -1
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        job_id, _, index = text.rpartition(":")
        if job_id == job.job_id and index.isdigit() and int(index) < job.total:
            return int(index)
    except (binascii.Error, UnicodeDecodeError, ValueError):
        pass
    raise RequestValidationError(
        [
            {
                "code": "custom",
                "path": ["cursor"],
                "message": "Invalid cursor: use the `next` value of this job's last page",
            }
        ]
    )


def job_data(job: Job, *, limit: str | None = None, cursor: str | None = None) -> dict[str, Any]:
    page_size, after = page_limit(limit), _after(job, cursor)
    results, last = job_store.results_page(job.job_id, after, page_size)
    data: dict[str, Any] = {
        "jobId": job.job_id,
        "operation": job.operation,
        "status": job.status,
        "total": job.total,
        "completed": job.completed,
        "failed": job.failed,
        "cancelled": job.cancelled,
        "creditsCost": job.credits_cost,
        "createdAt": job.created_at,
        "updatedAt": job.updated_at,
        "expiresAt": job.expires_at,
        "results": results,
        "next": None if last is None else encode_cursor(job.job_id, last),
    }
    if job.webhook is not None:
        data["webhook"] = {**job.webhook, "deliveries": job.deliveries}
    if job.changes is not None:
        data["since"], data["changes"] = job.since, job.changes
    return data
