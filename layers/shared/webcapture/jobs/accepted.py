"""The answer to a submitted job (a batch, a crawl): 202 with where its status is read."""

from __future__ import annotations

from typing import Protocol

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from webcapture.edge.responses import answer
from webcapture.jobs.batch_request import ACCEPTED


class _SubmittedJob(Protocol):
    job_id: str
    status: str
    total: int
    reserved: int


def job_accepted(app: APIGatewayRestResolver, job: _SubmittedJob, repeated: bool) -> Response[str]:
    """A submitted job's 202 (docs/jobs.md#jobs): its id, status, total and status URL, charged what it
    reserved; a repeated submit (the same Idempotency-Key and body) charges nothing new. Its status is the one
    the job was accepted with, on a replay too (the job's status now is GET statusUrl's:
    docs/decisions.md)."""
    data = {"jobId": job.job_id, "status": ACCEPTED, "total": job.total,
            "statusUrl": job_status_url(app, job.job_id)}
    return answer(app, data, 0 if repeated else job.reserved, status=202)


def job_status_url(app: APIGatewayRestResolver, job_id: str) -> str:
    """Where a job's status is read (`statusUrl`), absolute on the request's own host."""
    event = app.current_event
    host = event.headers.get("Host") or event.headers.get("host") or ""
    context = event.raw_event.get("requestContext") or {}
    if host.endswith(".amazonaws.com"):  # API Gateway's own address carries the stage in the path
        return f"https://{host}/{context.get('stage', '')}/v1/jobs/{job_id}"
    scheme = event.headers.get("X-Forwarded-Proto") or event.headers.get("x-forwarded-proto") or "http"
    return f"{scheme}://{host}/v1/jobs/{job_id}" if host else f"/v1/jobs/{job_id}"
