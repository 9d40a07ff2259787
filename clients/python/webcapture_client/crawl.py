"""`webcapture crawl URL` (docs/crawl-and-map.md#crawl-and-map): start a crawl; with --wait, follow it to its
end with a progress bar, and with --out DIR write one file per page: `<index>-<path>.md` when Markdown is the
only format, else `<index>-<path>.json` with the page's whole result. The index (the page's result index,
zero-padded) keeps the names unique and in crawl order; failed pages, and pages the site answered with an
HTTP error (a broken link's 404), are listed on stderr, not written.
With --since JOB_ID (an incremental crawl, docs/crawl-and-map.md#incremental-crawl) only new and changed
pages are written; the counts of new, changed, same and removed pages, and each removed URL, go to stderr."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webcapture_client.engine_option import add_engine_option
from webcapture_client.http import CliFailure, call
from webcapture_client.jobs import add_submit_options, data_of, follow, where

FORMATS = ("markdown", "links", "html", "screenshot")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
MAX_NAME_CHARS = 100


def file_name(index: int, url: str, extension: str) -> str:
    """`0007-docs_start.md` for the page at index 7, http://host/docs/start."""
    parts = urlsplit(url)
    path = parts.path.strip("/") + (f"?{parts.query}" if parts.query else "")
    slug = _UNSAFE.sub("_", path).strip("_")[:MAX_NAME_CHARS] or "index"
    return f"{index:04d}-{slug}.{extension}"


def _body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {"url": args.url}
    optional = {"limit": args.limit, "maxDepth": args.max_depth, "sitemap": args.sitemap,
                "maxConcurrency": args.max_concurrency, "delay": args.delay, "engine": args.engine,
                "since": args.since}
    body.update({name: value for name, value in optional.items() if value is not None})
    if args.format:
        body["formats"] = list(dict.fromkeys(args.format))
    if args.include:
        body["includePaths"] = args.include
    if args.exclude:
        body["excludePaths"] = args.exclude
    if args.subdomains:
        body["allowSubdomains"] = True
    if args.ignore_robots:
        body["respectRobotsTxt"] = False
    if args.webhook:
        body["webhook"] = {"url": args.webhook}
    return body


def _unchanged(result: dict[str, Any]) -> str | None:
    """`same` or `removed` for an incremental crawl's page that carries no content, else None. A removed page
    is a completed result (it answered 404 or 410) or one with status `removed` (no longer reached)."""
    if result["status"] == "removed":
        return "removed"
    change = (result.get("data") or {}).get("changeStatus")
    return change if result["status"] == "completed" and change in ("same", "removed") else None


def _http_error(result: dict[str, Any]) -> int | None:
    """The status of a completed page the site answered with an HTTP error (4xx, 5xx), else None: its body
    is the site's error page, not a page of the site."""
    status = (result.get("data") or {}).get("statusCode")
    return status if result["status"] == "completed" and isinstance(status, int) and status >= 400 else None


def _with_content(result: dict[str, Any]) -> bool:
    return result["status"] == "completed" and _unchanged(result) is None and _http_error(result) is None


def write_pages(out: Path, results: list[dict[str, Any]], formats: list[str]) -> list[Path]:
    """One file per completed page with content; the files written. An incremental crawl's `same` pages
    have no content of their own (theirs is the earlier crawl's, `sameAs`) and its removed pages none at
    all: neither is written, and each removed page is named on stderr. A page answered with an HTTP error
    is named on stderr with its status, not written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    markdown_only = formats == ["markdown"]
    for result in results:
        unchanged = _unchanged(result)
        if unchanged == "removed":
            print(f"webcapture: removed: {(result.get('data') or {}).get('url')}", file=sys.stderr)
            continue
        if unchanged == "same":
            continue
        if (status := _http_error(result)) is not None:
            print(f"webcapture: {result['data'].get('url')}: HTTP {status}", file=sys.stderr)
            continue
        if result["status"] != "completed":
            error = result.get("error") or {}
            where_from = error.get("url", result["index"])
            print(f"webcapture: {where_from}: {error.get('code')} {error.get('message')}", file=sys.stderr)
            continue
        data = result["data"]
        path = out / file_name(result["index"], data["url"], "md" if markdown_only else "json")
        text = data.get("markdown", "") if markdown_only else json.dumps(data, indent=2, ensure_ascii=False)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def changes_line(job: dict[str, Any]) -> str | None:
    """An incremental crawl's counts, for stderr once it has ended: what changed since the earlier crawl."""
    changes = job.get("changes")
    if not isinstance(changes, dict):
        return None
    counts = ", ".join(f"{changes.get(name, 0)} {name}" for name in ("new", "changed", "same", "removed"))
    return f"webcapture: since crawl {job.get('since')}: {counts} (same and removed pages are free)"


def _crawl(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    body = _body(args)
    headers = {"Idempotency-Key": args.idempotency_key} if args.idempotency_key else None
    accepted = data_of(call(api_url, api_key, "/v1/web/crawl", body, headers=headers))
    if not args.wait:
        print(json.dumps(accepted, indent=2))
        return 0
    # Said even with --quiet (which silences the progress bar): a later `--since` needs this id.
    print(f"webcapture: crawl {accepted['jobId']} queued", file=sys.stderr)
    page, results = follow(api_url, api_key, str(accepted["jobId"]), wait=True, quiet=args.quiet)
    summary = changes_line(page)
    if summary is not None:
        print(summary, file=sys.stderr)
    if args.out is None:
        print(json.dumps({**page, "results": results}, indent=2, ensure_ascii=False))
    else:
        try:
            written = write_pages(Path(args.out), results, body.get("formats", ["markdown"]))
        except OSError as error:
            raise CliFailure(f"could not write the pages to {args.out}: {error}", 7) from None
        for path in written:
            print(path)
        with_content = sum(1 for result in results if _with_content(result))
        if len(set(written)) != with_content:
            raise CliFailure(f"{len(set(written))} files written for {with_content} pages crawled with "
                             f"content", 7)
    return 0 if page["status"] != "failed" else 7


def add_crawl_command(commands: Any, where_parser: argparse.ArgumentParser) -> None:
    crawl = commands.add_parser("crawl", parents=[where_parser],
                                help="crawl a site as a job; with --wait --out DIR, one file per page")
    crawl.add_argument("url", help="the start page, http or https")
    crawl.add_argument("--limit", type=int, help="at most this many pages (1-100000, default 100)")
    crawl.add_argument("--max-depth", type=int, help="link hops from the start page (0-20, default 5)")
    crawl.add_argument("--format", action="append", choices=FORMATS,
                       help="what each page gives (repeatable; default markdown)")
    crawl.add_argument("--include", action="append", metavar="GLOB", help="only paths matching (repeatable)")
    crawl.add_argument("--exclude", action="append", metavar="GLOB", help="not paths matching (repeatable)")
    crawl.add_argument("--sitemap", choices=["include", "skip", "only"],
                       help="start from the sitemaps too (include, the default), not at all, or only them")
    crawl.add_argument("--subdomains", action="store_true", help="follow links to the site's subdomains")
    crawl.add_argument("--max-concurrency", type=int,
                       help="pages of one host loaded at once (1-10, default 2)")
    crawl.add_argument("--delay", type=int, metavar="MS",
                       help="milliseconds between requests to a host (0-10000, default 0)")
    add_engine_option(crawl, "auto")
    crawl.add_argument("--since", metavar="JOB_ID",
                       help="re-crawl incrementally against that earlier crawl of yours: each page is new, "
                            "changed or same (same pages are free and carry no content), the earlier "
                            "pages not found now are listed as removed")
    crawl.add_argument("--ignore-robots", action="store_true", help="do not read robots.txt")
    add_submit_options(crawl, "crawl")
    crawl.add_argument("--out", metavar="DIR", help="with --wait: write one file per page here")
    crawl.set_defaults(run=_crawl)
