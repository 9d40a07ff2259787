"""`webcapture shot|links|extract|markdown|content|pdf|sign|map|crawl URL`, `webcapture profiles ...`: the API
from a shell.

Each command turns its flags into the endpoint's JSON body (only the flags given: the API's defaults
apply otherwise), makes one call, and writes the result: files for images and PDFs, JSON or text on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from webcapture_client.crawl import add_crawl_command
from webcapture_client.engine_option import add_engine_option
from webcapture_client.http import Answer, CliFailure, call, fetch, progress
from webcapture_client.jobs import add_job_commands
from webcapture_client.monitors import add_monitor_commands
from webcapture_client.profiles import add_profile_commands
from webcapture_client.settings import client_settings
from webcapture_client.signed_links import signed_link

Body = dict[str, Any]


def _page_control(parser: argparse.ArgumentParser) -> None:
    """The page-control flags every browser command takes (docs/api.md#page-control)."""
    parser.add_argument("url", help="the page, http or https")
    # --wait-time, not --wait: `--wait` means "wait for the job to end" in batch, job and crawl.
    parser.add_argument("--wait-time", type=int, metavar="MS", help="extra idle time after load (waitTime)")
    parser.add_argument("--wait-for", metavar="CSS", help="wait for this element (waitForSelector)")
    parser.add_argument("--wait-until", choices=["load", "domcontentloaded", "networkidle0", "networkidle2"],
                        help="the load event to wait for (waitUntil; default load)")
    parser.add_argument("--best-attempt", action="store_true",
                        help="use the page as it is when a wait runs out")
    parser.add_argument("--scroll", action="store_true", help="scroll through the page first (lazy content)")
    parser.add_argument("--hide", action="append", metavar="CSS", help="hide elements (repeatable)")
    parser.add_argument("--block-ads", action="store_true", help="block ads and trackers (blockAds)")
    parser.add_argument("--block-cookie-banners", action="store_true",
                        help="dismiss cookie consent banners (blockCookieBanners)")
    parser.add_argument("--dark", action="store_true", help="prefers-color-scheme: dark")
    parser.add_argument("--device", help="a device name from Playwright's list, e.g. 'iPhone 15 Pro'")
    parser.add_argument("--user-agent", help="the User-Agent the browser sends (userAgent)")
    parser.add_argument("--profile", metavar="ID", help="start from this profile's logged-in session")
    parser.add_argument("--save-profile", action="store_true",
                        help="after a successful capture, save the session back to --profile")
    parser.add_argument("--body", metavar="JSON", help="more request fields, as a JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _page_body(args: argparse.Namespace) -> Body:
    body: Body = {"url": args.url}
    optional = {
        "waitTime": args.wait_time, "waitForSelector": args.wait_for, "waitUntil": args.wait_until,
        "hideSelectors": args.hide, "device": args.device, "userAgent": args.user_agent,
        "colorScheme": "dark" if args.dark else None,
        "engine": getattr(args, "engine", None),  # only the commands whose endpoint takes one have --engine
    }
    body.update({name: value for name, value in optional.items() if value is not None})
    for flag, name in (("best_attempt", "bestAttempt"), ("scroll", "scrollPage"), ("block_ads", "blockAds"),
                       ("block_cookie_banners", "blockCookieBanners")):
        if getattr(args, flag):
            body[name] = True
    if args.save_profile and not args.profile:
        raise CliFailure("--save-profile needs --profile ID", 2)
    if args.profile:
        body["profile"] = {"id": args.profile, "save": bool(args.save_profile)}
    if args.body:
        try:
            extra = json.loads(args.body)
        except json.JSONDecodeError as error:
            raise CliFailure(f"--body is not JSON: {error}", 2) from None
        if not isinstance(extra, dict):
            raise CliFailure("--body must be a JSON object", 2)
        body.update(extra)
    return body


def _call(args: argparse.Namespace, path: str, body: Body | None, accept: str = "application/json") -> Answer:
    settings = client_settings()
    api_key = args.api_key or settings.api_key
    if not api_key:
        raise CliFailure("no API key: set WEBCAPTURE_API_KEY or pass --api-key", 2)
    api_url = (args.api_url or settings.api_url).rstrip("/")
    if args.quiet:
        return call(api_url, api_key, path, body, accept=accept)
    with progress(f"waiting for {path}"):
        return call(api_url, api_key, path, body, accept=accept)


def _data(answer: Answer) -> Body:
    data = answer.json().get("data")
    if not isinstance(data, dict):
        raise CliFailure("unexpected answer from the API: no data", 7)
    warning = data.get("warning")
    if warning:
        print(f"webcapture: warning: {warning}", file=sys.stderr)
    return data


def _save(payload: bytes, output: str, answer: Answer) -> None:
    warning = answer.headers.get("X-Webcapture-Warning")
    if warning:
        print(f"webcapture: warning: {warning}", file=sys.stderr)
    if output == "-":
        sys.stdout.buffer.write(payload)
        sys.stdout.buffer.flush()
    else:
        Path(output).write_bytes(payload)
        print(f"webcapture: wrote {output} ({len(payload)} bytes)", file=sys.stderr)


def _bytes_or_stored(answer: Answer) -> bytes:
    """The bytes of a binary answer, or of the stored file a 303 points at."""
    if answer.status == 303:
        location = answer.headers.get("Location")
        if not location:
            raise CliFailure("303 without a Location from the API", 7)
        return fetch(location)
    return answer.body


def _shot_body(args: argparse.Namespace) -> Body:
    body = _page_body(args)
    options: Body = {"fullPage": args.full_page, "type": args.format}
    if args.quality is not None:
        options["quality"] = args.quality
    if args.selector:
        options["selector"] = args.selector
    body["screenshotOptions"] = options
    viewport = {name: value for name, value in
                (("width", args.width), ("height", args.height), ("deviceScaleFactor", args.scale))
                if value is not None}
    if viewport:
        body["viewport"] = viewport
    if args.max_age is not None:
        body["maxAge"] = args.max_age
    return body


def _shot(args: argparse.Namespace) -> int:
    body = _shot_body(args)
    answer = _call(args, "/v1/web/screenshot", body, accept=f"image/{args.format}")
    _save(_bytes_or_stored(answer), args.output, answer)
    return 0


def _pdf(args: argparse.Namespace) -> int:
    body = _page_body(args)
    options: Body = {"format": args.format}
    if args.landscape:
        options["landscape"] = True
    body["pdfOptions"] = options
    answer = _call(args, "/v1/web/pdf", body, accept="application/pdf")
    _save(_bytes_or_stored(answer), args.output, answer)
    return 0


def _links(args: argparse.Namespace) -> int:
    body = _page_body(args)
    if args.internal_only:
        body["includeExternal"] = False
    data = _data(_call(args, "/v1/web/links", body))
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        for link in data.get("links", []):
            print(link["url"] + (f"\t{link['text']}" if link.get("text") else ""))
    return 0


def _extract(args: argparse.Namespace) -> int:
    body = _page_body(args)
    body["responseType"] = "text" if args.text else "json"
    if args.prompt:
        body["prompt"] = args.prompt
    if args.schema:
        schema = json.loads(Path(args.schema).read_text())
        body["response_format"] = {"type": "json_schema", "schema": schema}
    data = _data(_call(args, "/v1/web/ai-extract", body))
    print(data["text"] if args.text else json.dumps(data.get("extracted"), indent=2, ensure_ascii=False))
    return 0


def _markdown(args: argparse.Namespace) -> int:
    body = _page_body(args)
    if args.all:
        body["onlyMainContent"] = False
    print(_data(_call(args, "/v1/web/markdown", body))["markdown"])
    return 0


def _sign(args: argparse.Namespace) -> int:
    """Print a signed link: the secret from --secret and --user, else asked from the API with the key."""
    user_id, secret = args.user, args.secret
    if not (user_id and secret):
        data = _data(_call(args, "/v1/signing/secret", None))
        user_id, secret = data["userId"], data["secret"]
    api_url = (args.api_url or client_settings().api_url).rstrip("/")
    print(signed_link(api_url, user_id, secret, _shot_body(args), expires_in_s=args.expires_in))
    return 0


def _content(args: argparse.Namespace) -> int:
    print(_data(_call(args, "/v1/web/content", _page_body(args)))["html"])
    return 0


def _map(args: argparse.Namespace) -> int:
    body: Body = {"url": args.url}
    optional = {"limit": args.limit, "search": args.search, "sitemap": args.sitemap}
    body.update({name: value for name, value in optional.items() if value is not None})
    if args.subdomains:
        body["includeSubdomains"] = True
    if args.keep_query:
        body["ignoreQueryParameters"] = False
    data = _data(_call(args, "/v1/web/map", body))
    if args.json:
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        for link in data.get("links", []):
            print(link["url"] + (f"\t{link['title']}" if link.get("title") else ""))
    return 0


def add_commands(commands: Any) -> None:
    """The client commands, on the `webcapture` parser's subcommands."""
    where = argparse.ArgumentParser(add_help=False)
    where.add_argument("--api-url", help="the API (default: $WEBCAPTURE_API_URL or http://127.0.0.1:3000)")
    where.add_argument("--api-key", help="the API key (default: $WEBCAPTURE_API_KEY)")

    def command(name: str, help_text: str,
                run: Callable[[argparse.Namespace], int]) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, parents=[where], help=help_text)
        _page_control(parser)
        parser.set_defaults(run=run)
        return parser

    shot = command("shot", "screenshot a page to a file", _shot)
    shot.add_argument("-o", "--output", default="page.png", help="file to write, or - for stdout")
    sign = command("sign", "print a signed link to a screenshot (for <img src>; no key in it)", _sign)
    sign.add_argument("--expires-in", type=int, metavar="SECONDS", help="the link stops working after")
    sign.add_argument("--user", help="your user id (default: asked from the API, with --secret)")
    sign.add_argument("--secret", help="your signing secret (default: GET /v1/signing/secret)")
    for parser in (shot, sign):
        parser.add_argument("--full-page", action=argparse.BooleanOptionalAction, default=True,
                            help="the whole page (the default), or only the viewport")
        parser.add_argument("--width", type=int, help="viewport width in CSS pixels (default 1280)")
        parser.add_argument("--height", type=int, help="viewport height in CSS pixels (default 800)")
        parser.add_argument("--scale", type=float, help="deviceScaleFactor")
        parser.add_argument("--format", choices=["png", "jpeg", "webp"], default="png",
                            help="image format (default png)")
        parser.add_argument("--quality", type=int, help="jpeg/webp quality 1-100")
        parser.add_argument("--selector", metavar="CSS", help="capture only this element")
        parser.add_argument("--max-age", type=int, metavar="SECONDS",
                            help="answer from the cache when this recent (maxAge)")

    links = command("links", "the page's links (url<TAB>text per line)", _links)
    links.add_argument("--internal-only", action="store_true",
                       help="only links to the page's own site (includeExternal: false)")
    links.add_argument("--json", action="store_true", help="the whole answer's data as JSON")

    extract = command("extract", "structured data (or text) from a page, by the AI model", _extract)
    extract.add_argument("--prompt", help="what to extract")
    extract.add_argument("--schema", metavar="FILE", help="a JSON Schema file for the answer")
    extract.add_argument("--text", action="store_true", help="answer as text instead of JSON")

    markdown = command("markdown", "the page's main content as Markdown", _markdown)
    markdown.add_argument("--all", action="store_true", help="everything visible, not only the main content")

    content = command("content", "the page's HTML (rendered, or as served with --engine http)", _content)
    for parser in (links, extract, markdown, content):
        add_engine_option(parser, "browser")

    add_job_commands(commands, where)
    site_map = commands.add_parser("map", parents=[where], help="a site's URLs (url<TAB>title per line)")
    site_map.add_argument("url", help="the site's start page, http or https")
    site_map.add_argument("--limit", type=int, help="at most this many URLs (1-5000, default 1000)")
    site_map.add_argument("--search", help="only URLs (or link texts) containing this")
    site_map.add_argument("--sitemap", choices=["include", "skip", "only"],
                          help="use the sitemaps too (include, the default), not at all, or only them")
    site_map.add_argument("--subdomains", action="store_true", help="include the site's subdomains")
    site_map.add_argument("--keep-query", action="store_true",
                          help="keep query parameters (sorted) instead of dropping them")
    site_map.add_argument("--json", action="store_true", help="the whole answer's data as JSON")
    site_map.add_argument("--quiet", action="store_true", help="no progress on stderr")
    site_map.set_defaults(run=_map)
    add_crawl_command(commands, where)
    add_profile_commands(commands, where)
    add_monitor_commands(commands, where)

    pdf = command("pdf", "the page as a PDF file", _pdf)
    pdf.add_argument("-o", "--output", default="page.pdf", help="file to write, or - for stdout")
    pdf.add_argument("--format", choices=["A3", "A4", "A5", "Legal", "Letter", "Tabloid"], default="A4",
                     help="paper size (default A4)")
    pdf.add_argument("--landscape", action="store_true", help="landscape instead of portrait")


def run(args: argparse.Namespace) -> int:
    """A client command; failures as one line on stderr, with their exit code."""
    try:
        result: int = args.run(args)
        sys.stdout.flush()  # here, so a reader that has gone away is seen below, not at exit
        return result
    except BrokenPipeError:
        # The reader took what it wanted and closed the pipe (`| head`): not a failure, and nothing to say.
        # stdout goes to /dev/null so the interpreter's own flush at exit finds no pipe to complain about.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except CliFailure as failure:
        print(f"webcapture: {failure}", file=sys.stderr)
        return failure.exit_code
    except (OSError, ValueError) as error:  # a file that can't be read or written, a bad --body / --schema
        print(f"webcapture: {error}", file=sys.stderr)
        return 2
