"""Tools that start a job (CONTRACT 17: a batch, a crawl) and follow it: the job's counts are reported as
progress (`completed + failed` of `total`) while it runs, and its status and first page of results are the
answer.

A tool call cannot wait for hours: after `budget_s` the tool answers with the job as it stands and its
jobId, and says so, for the model to look again later (`GET /v1/jobs/{jobId}`, the job status tool).
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import quote, urlencode

import anyio
from mcp_types import ContentBlock, TextContent

from webcapture_client.mcp_server.api import Run, ToolApi, ToolFailure

FINISHED = frozenset({"completed", "failed", "cancelled"})
POLL_S = 2.0
# Under the 60 s many MCP clients allow a call before they give up on it.
BUDGET_S = 50.0


def status_path(job_id: str) -> str:
    return f"/v1/jobs/{quote(job_id, safe='')}"


def job_answer(job: dict[str, Any]) -> list[ContentBlock]:
    """The job as JSON; while it runs, a first line that says how to look again."""
    blocks: list[ContentBlock] = []
    if job.get("status") not in FINISHED:
        blocks.append(TextContent(text=(
            f"The job {job.get('jobId')} is still {job.get('status')} ({job.get('completed', 0)} of "
            f"{job.get('total')} done): look again later with its jobId; what is shown is so far.")))
    blocks.append(TextContent(text=json.dumps(job, ensure_ascii=False, indent=1)))
    return blocks


async def follow(api: ToolApi, job_id: str, *, poll_s: float = POLL_S, budget_s: float = BUDGET_S,
                 ) -> dict[str, Any]:
    """The job's status, polled until it finishes or the budget is spent; its counts as progress."""
    deadline = time.monotonic() + budget_s
    while True:
        job = api.data(await api.get(status_path(job_id), report_wait=False))
        done = int(job.get("completed", 0)) + int(job.get("failed", 0))
        total = job.get("total")
        await api.progress(done, total, f"{job.get('status')}: {done} of {total} done")
        if job.get("status") in FINISHED or time.monotonic() >= deadline:
            return job
        await anyio.sleep(poll_s)


def start_and_follow(path: str, *, poll_s: float = POLL_S, budget_s: float = BUDGET_S) -> Run:
    """POST the arguments to `path` (which answers 202 with a jobId), then follow the job."""

    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        started = api.data(await api.post(path, arguments, report_wait=False))
        job_id = started.get("jobId")
        if not isinstance(job_id, str) or not job_id:
            raise ToolFailure(f"Unexpected answer from the webcapture API to {path}: no jobId.")
        return job_answer(await follow(api, job_id, poll_s=poll_s, budget_s=budget_s))

    return run


def look_up() -> Run:
    """The job status tool's run: `GET /v1/jobs/{jobId}` once, with `limit` and `cursor` when given (the
    arguments are the path's and the query's parameters)."""

    async def run(api: ToolApi, arguments: dict[str, Any]) -> list[ContentBlock]:
        job_id = arguments.get("jobId")
        if not isinstance(job_id, str) or not job_id:
            raise ToolFailure("jobId is required: the id a batch or crawl tool answered with.")
        query = {name: arguments[name] for name in ("limit", "cursor") if arguments.get(name) is not None}
        path = status_path(job_id) + (f"?{urlencode(query)}" if query else "")
        return job_answer(api.data(await api.get(path)))

    return run
