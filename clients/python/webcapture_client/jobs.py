"""`webcapture batch FILE` and `webcapture job ID [--wait]` (docs/jobs.md#jobs): a batch from NDJSON (one
request body per line), a job's status and results, with a progress bar on stderr while waiting."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from webcapture_client.engine_option import ENGINE_OPERATIONS, add_engine_option
from webcapture_client.http import Answer, ApiAnswerError, CliFailure, call
from webcapture_client.settings import client_settings

OPERATIONS = ("screenshot", "links", "ai-extract", "markdown", "content", "pdf")
FINAL = ("completed", "failed", "cancelled")
POLL_S = 1.0
READ_RETRIES = 4
READ_BACKOFF_S = 1.0
BAR_WIDTH = 30


def where(args: argparse.Namespace) -> tuple[str, str]:
    settings = client_settings()
    api_key = args.api_key or settings.api_key
    if not api_key:
        raise CliFailure("no API key: set WEBCAPTURE_API_KEY or pass --api-key", 2)
    return (args.api_url or settings.api_url).rstrip("/"), api_key


def read_ndjson(source: TextIO) -> list[dict[str, Any]]:
    """One JSON object per line; blank lines skipped; a bad line named by its number."""
    bodies = []
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            body = json.loads(line)
        except ValueError as error:
            raise CliFailure(f"line {number} is not JSON: {error}", 2) from None
        if not isinstance(body, dict):
            raise CliFailure(f"line {number} is not a JSON object", 2)
        bodies.append(body)
    if not bodies:
        raise CliFailure("no request bodies in the file", 2)
    return bodies


def data_of(answer: Answer) -> dict[str, Any]:
    data = answer.json().get("data")
    if not isinstance(data, dict):
        raise CliFailure("unexpected answer from the API: no data", 7)
    return data


def _batch(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    if args.file == "-":
        bodies = read_ndjson(sys.stdin)
    else:
        with Path(args.file).open(encoding="utf-8") as handle:
            bodies = read_ndjson(handle)
    if args.engine is not None:
        if args.operation not in ENGINE_OPERATIONS:
            raise CliFailure(f"--engine is for the operations {', '.join(ENGINE_OPERATIONS)}; "
                             f"{args.operation} always renders in the browser", 2)
        # A line's own engine wins: the flag is the default for the lines that name none.
        bodies = [{"engine": args.engine, **line} for line in bodies]
    body: dict[str, Any] = {"operation": args.operation, "requests": bodies}
    if args.webhook:
        body["webhook"] = {"url": args.webhook}
    headers = {"Idempotency-Key": args.idempotency_key} if args.idempotency_key else None
    accepted = data_of(call(api_url, api_key, "/v1/batch", body, headers=headers))
    if not args.wait:
        print(json.dumps(accepted, indent=2))
        return 0
    print(f"webcapture: job {accepted['jobId']} queued ({accepted['total']} items)", file=sys.stderr)
    return _show(api_url, api_key, str(accepted["jobId"]), wait=True, quiet=args.quiet)


def _job(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    return _show(api_url, api_key, args.job_id, wait=args.wait, quiet=args.quiet)


def _get(api_url: str, api_key: str, job_id: str, query: str = "") -> dict[str, Any]:
    return read(api_url, api_key, f"/v1/jobs/{job_id}{query}")


def read(api_url: str, api_key: str, path: str) -> dict[str, Any]:
    """A GET's data. A read is free and changes nothing, so a failure a retry may cure (429, a 5xx, the API
    out of reach) is tried again after 1, 2, 4 and 8 s before it ends the command: a long `--wait` is not
    lost to one busy moment."""
    attempt = 0
    while True:
        try:
            return data_of(call(api_url, api_key, path, None, method="GET"))
        except CliFailure as failure:
            if attempt >= READ_RETRIES or not _transient(failure):
                raise
            time.sleep(READ_BACKOFF_S * 2 ** attempt)
            attempt += 1


def _transient(failure: CliFailure) -> bool:
    if isinstance(failure, ApiAnswerError):
        return failure.status == 429 or failure.status >= 500
    return failure.exit_code == 8  # the API could not be reached


def progress_bar(job: dict[str, Any]) -> str:
    done = job["completed"] + job["failed"] + job.get("cancelled", 0)
    total = max(int(job["total"]), 1)
    filled = BAR_WIDTH * done // total
    return (f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{job['total']} "
            f"{job['status']}: {job['completed']} completed, {job['failed']} failed")


def follow(api_url: str, api_key: str, job_id: str, *, wait: bool,
           quiet: bool) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The job (its last page) and every result; with wait, once it has ended, a progress bar meanwhile."""
    interactive = sys.stderr.isatty()
    job = _get(api_url, api_key, job_id, "?limit=1")
    while wait and job["status"] not in FINAL:
        if not quiet:
            line = progress_bar(job)
            sys.stderr.write(f"\r{line}" if interactive else f"{line}\n")
            sys.stderr.flush()
        time.sleep(POLL_S)
        job = _get(api_url, api_key, job_id, "?limit=1")
    if wait and not quiet:
        sys.stderr.write(("\r" if interactive else "") + progress_bar(job) + "\n")
    results: list[dict[str, Any]] = []
    query = "?limit=100"
    while True:
        page = _get(api_url, api_key, job_id, query)
        results.extend(page["results"])
        if page["next"] is None:
            if page["status"] in FINAL:
                check_every_result(page, results)
            return page, results
        query = f"?limit=100&cursor={page['next']}"


def check_every_result(job: dict[str, Any], results: list[dict[str, Any]]) -> None:
    """An ended job's pages must hold each of its completed and failed results once: anything else is a
    result the CLI would silently leave out, so it stops with an error instead."""
    indexes = [result["index"] for result in results]
    counts = {status: sum(1 for r in results if r["status"] == status) for status in ("completed", "failed")}
    expected = {"completed": job["completed"], "failed": job["failed"]}
    if len(set(indexes)) != len(indexes) or counts != expected:
        raise CliFailure(
            f"the job's pages held {counts['completed']} completed and {counts['failed']} failed results "
            f"({len(indexes)} in all, {len(indexes) - len(set(indexes))} repeated); the job counts "
            f"{job['completed']} and {job['failed']}: read it again with `webcapture job {job['jobId']}`", 7)


def _show(api_url: str, api_key: str, job_id: str, *, wait: bool, quiet: bool) -> int:
    """The job with every result (all pages) as JSON on stdout; with wait, once it has ended."""
    page, results = follow(api_url, api_key, job_id, wait=wait, quiet=quiet)
    print(json.dumps({**page, "results": results}, indent=2))
    return 0 if page["status"] != "failed" else 7


def add_submit_options(parser: argparse.ArgumentParser, what: str) -> None:
    """The options of every command that submits a job: its webhook, an Idempotency-Key, waiting for it."""
    parser.add_argument("--webhook", metavar="URL", help="where job.completed / job.failed are POSTed")
    parser.add_argument("--idempotency-key", metavar="KEY", help=f"a retried submit answers the same {what}")
    parser.add_argument("--wait", action="store_true", help=f"wait for the {what} to end")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def add_job_commands(commands: Any, where: argparse.ArgumentParser) -> None:
    batch = commands.add_parser("batch", parents=[where],
                                help="run many requests of one operation as a job (NDJSON: a body per line)")
    batch.add_argument("file", help="NDJSON file of request bodies, or - for stdin")
    batch.add_argument("--operation", choices=OPERATIONS, default="screenshot",
                       help="what every line asks for (default screenshot)")
    add_engine_option(batch, "browser; a line's own engine wins")
    add_submit_options(batch, "job")
    batch.set_defaults(run=_batch)
    job = commands.add_parser("job", parents=[where], help="a job's status and results")
    job.add_argument("job_id", metavar="ID", help="the job's id (jobId, printed when it was submitted)")
    job.add_argument("--wait", action="store_true", help="wait for the job to end, with a progress bar")
    job.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    job.set_defaults(run=_job)
