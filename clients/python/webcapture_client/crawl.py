"""`webcapture crawl URL` (CONTRACT 18): start a crawl; with --wait, follow it to its end with a progress
bar, and with --out DIR write one file per page: `<index>-<path>.md` when Markdown is the only format,
else `<index>-<path>.json` with the page's whole result. The index (the page's result index, zero-padded)
keeps the names unique and in crawl order; failed pages are listed on stderr, not written."""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webcapture_client.http import call
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
                "maxConcurrency": args.max_concurrency, "delay": args.delay}
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


def write_pages(out: Path, results: list[dict[str, Any]], formats: list[str]) -> list[Path]:
    """One file per completed page; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    markdown_only = formats == ["markdown"]
    for result in results:
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


def _crawl(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    body = _body(args)
    headers = {"Idempotency-Key": args.idempotency_key} if args.idempotency_key else None
    accepted = data_of(call(api_url, api_key, "/v1/web/crawl", body, headers=headers))
    if not args.wait:
        print(json.dumps(accepted, indent=2))
        return 0
    if not args.quiet:
        print(f"webcapture: crawl {accepted['jobId']} queued", file=sys.stderr)
    page, results = follow(api_url, api_key, str(accepted["jobId"]), wait=True, quiet=args.quiet)
    if args.out is None:
        print(json.dumps({**page, "results": results}, indent=2, ensure_ascii=False))
    else:
        for path in write_pages(Path(args.out), results, body.get("formats", ["markdown"])):
            print(path)
    return 0 if page["status"] != "failed" else 7


def add_crawl_command(commands: Any, where_parser: argparse.ArgumentParser) -> None:
    crawl = commands.add_parser("crawl", parents=[where_parser],
                                help="crawl a site as a job; with --wait --out DIR, one file per page")
    crawl.add_argument("url", help="the start page, http or https")
    crawl.add_argument("--limit", type=int, help="at most this many pages (1-10000, default 100)")
    crawl.add_argument("--max-depth", type=int, help="link hops from the start page (0-20, default 5)")
    crawl.add_argument("--format", action="append", choices=FORMATS,
                       help="what each page gives (repeatable; default markdown)")
    crawl.add_argument("--include", action="append", metavar="GLOB", help="only paths matching (repeatable)")
    crawl.add_argument("--exclude", action="append", metavar="GLOB", help="not paths matching (repeatable)")
    crawl.add_argument("--sitemap", choices=["include", "skip", "only"],
                       help="start from the sitemaps too (include, the default), not at all, or only them")
    crawl.add_argument("--subdomains", action="store_true", help="follow links to the site's subdomains")
    crawl.add_argument("--max-concurrency", type=int, help="pages of one host loaded at once (1-10)")
    crawl.add_argument("--delay", type=int, metavar="MS", help="milliseconds between requests to a host")
    crawl.add_argument("--ignore-robots", action="store_true", help="do not read robots.txt")
    add_submit_options(crawl, "crawl")
    crawl.add_argument("--out", metavar="DIR", help="with --wait: write one file per page here")
    crawl.set_defaults(run=_crawl)
