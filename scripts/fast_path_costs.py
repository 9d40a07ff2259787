"""What the fast-path benchmark's figures cost: the measured block of docs/cost.md, written by
`make bench-fast-path` from the run that writes docs/benchmarks.md#fast-path, so the two never disagree.

A crawl's Lambda time per page is given two ways: the function containers' CPU per page (what the work
needs), and the crawl's wall time times its workers per page (what Lambda bills if every worker is busy
for the whole crawl; an upper bound). The memory billed is the function's MemorySize in template.yaml.
Beside Lambda, what the same 1,000 cost in API Gateway, DynamoDB and SQS, counted from what the service
writes for each (docs/cost.md says which writes): a crawl's result is written inline in a transaction,
compressed as its item keeps it (webcapture.jobs.result_bodies), so its stored size in KB counts twice.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from localapi.cfn_template import load_template
from webcapture.jobs.result_bodies import stored_bytes, stored_form

REPO = Path(__file__).resolve().parent.parent
LAMBDA_GB_S = 0.0000166667  # us-east-1, x86, per GB-second
LAMBDA_REQUEST = 0.20 / 1_000_000
API_REQUEST = 3.50 / 1_000_000  # REST API
WRITE_UNIT = 0.625 / 1_000_000  # DynamoDB on-demand, per write request unit (1 KB; twice in a transaction)
SQS_REQUEST = 0.40 / 1_000_000
# A synchronous request's metering: the key's credits and slot taken, then the slot given back.
METERING_WRITES = 2
# A page crawled by its finder, besides its result: its URL's claim and its item's done mark, each 1 KB in
# a transaction (the job's counters move once per 49 pages).
PAGE_WRITES = 4
# A page run from its own message (a render under `auto` or `browser`): sent, received, deleted.
PAGE_MESSAGES = 3


@dataclass(frozen=True)
class Crawled:
    seconds: float  # the crawl's own record: createdAt to its final updatedAt
    pages: int
    container_cpu_s: float
    result_kb: float  # mean size of a page's stored result, in DynamoDB's 1 KB write units
    messages: bool  # whether each page runs from its own message
    text_kb: float = 0.0  # the same as JSON text, before the item compresses it


@dataclass(frozen=True)
class Measured:
    markdown_browser_ms: float
    markdown_http_ms: float
    first_page_browser_s: float
    first_page_http_s: float
    pss_browser_mb: float
    pss_http_mb: float
    auto: Crawled
    browser: Crawled
    since: Crawled
    workers: int


def memory_mb(function: str) -> int:
    return int(load_template(REPO / "template.yaml")["Resources"][function]["Properties"]["MemorySize"])


def per_thousand(seconds: float, mb: int, *, requests: bool = True) -> float:
    """Lambda's charge for 1,000 invocations (or pages) of `seconds` each at `mb` of memory."""
    return 1_000 * (seconds * mb / 1024 * LAMBDA_GB_S + (LAMBDA_REQUEST if requests else 0.0))


def result_kb(markdown: list[str], *, as_kept: bool = True) -> float:
    """The mean write units of the results holding these Markdowns, as their items keep them
    (webcapture.jobs.result_bodies: compressed) or as JSON text, with ~1 KB of metadata each."""
    texts = [json.dumps({"data": {"markdown": text}}, separators=(",", ":"), ensure_ascii=False)
             for text in markdown]
    sizes = [stored_bytes(stored_form(text)) if as_kept else len(text.encode()) for text in texts]
    return sum(-(-(size + 1024) // 1024) for size in sizes) / max(len(markdown), 1)


def cost_block(measured: Measured) -> str:
    markdown_mb, crawl_mb = memory_mb("MarkdownFunction"), memory_mb("CrawlFunction")
    request_others = 1_000 * (API_REQUEST + METERING_WRITES * WRITE_UNIT)
    rows = [
        _row("one warm `markdown` request, a large docs page (library/functions.html, 290 KB), over the "
             "local API", "browser", markdown_mb, f"{measured.markdown_browser_ms:.0f} ms",
             per_thousand(measured.markdown_browser_ms / 1000, markdown_mb), request_others),
        _row("the same", "http", markdown_mb, f"{measured.markdown_http_ms:.0f} ms",
             per_thousand(measured.markdown_http_ms / 1000, markdown_mb), request_others),
        _row("a fresh function's first page (library/json.html as Markdown), after its imports", "browser",
             markdown_mb, f"{measured.first_page_browser_s:.2f} s, {measured.pss_browser_mb:.0f} MB PSS",
             per_thousand(measured.first_page_browser_s, markdown_mb), request_others),
        _row("the same", "http", markdown_mb,
             f"{measured.first_page_http_s:.2f} s, {measured.pss_http_mb:.0f} MB PSS",
             per_thousand(measured.first_page_http_s, markdown_mb), request_others),
    ]
    for label, engine, crawled in (
        ("a crawl's page with its Markdown, python3.11-doc", "auto", measured.auto),
        ("the same", "browser", measured.browser),
        ("a re-crawl's `same` page (a 304; free in credits)", "auto, `since`", measured.since),
    ):
        cpu = crawled.container_cpu_s / crawled.pages
        worker = crawled.seconds * measured.workers / crawled.pages
        others = 1_000 * ((PAGE_WRITES + 2 * crawled.result_kb) * WRITE_UNIT
                          + (PAGE_MESSAGES * SQS_REQUEST if crawled.messages else 0.0))
        rows.append(_row(label, engine, crawl_mb,
                         f"{cpu * 1000:.0f} ms CPU, {worker * 1000:.0f} ms of worker time; result "
                         f"{crawled.result_kb:.0f} KB as kept ({crawled.text_kb:.0f} KB as text)",
                         per_thousand(worker, crawl_mb, requests=False), others,
                         per_thousand(cpu, crawl_mb, requests=False)))
    return "\n".join([
        "| operation | engine | memory billed | measured | Lambda per 1,000 | API Gateway, DynamoDB, SQS per "
        "1,000 | total per 1,000 |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        " ".join([
            "Measured in one run of `make bench-fast-path` (docs/benchmarks.md#fast-path) on the machine it",
            f"names; the crawls with {measured.workers} workers. A crawl's Lambda cost is given from the",
            "worker time (the crawl's wall time times its workers, per page: what Lambda bills if every",
            "worker is busy the whole crawl), and in brackets from the containers' CPU per page (what the",
            "work itself needs). Pages crawled by their finder have no invocation or message of their own.",
            "The other services: a request's API Gateway charge and its",
            f"{METERING_WRITES} metering writes; a crawl page's {PAGE_WRITES} write units of claim and done",
            "mark, its result's size as kept twice (written inline, compressed, in a transaction), and its",
            "messages where it runs from its own.",
        ]),
    ])


def _row(label: str, engine: str, mb: int, measured: str, lambda_cost: float, others: float,
         low: float | None = None) -> str:
    lambda_money = f"${lambda_cost:.4f}" + (f" (${low:.4f})" if low is not None else "")
    total = f"${lambda_cost + others:.4f}" + (f" (${low + others:.4f})" if low is not None else "")
    return f"| {label} | {engine} | {mb:,} MB | {measured} | {lambda_money} | ${others:.4f} | {total} |"
