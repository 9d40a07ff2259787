"""`webcapture monitors create|list|get|update|delete|run|checks`: pages checked on a schedule (the service's
docs/monitors.md), each answer printed as JSON, and the functions behind them for a program's own use.

The flags are the request's fields: `--schedule`, `--timezone`, `--name`, `--webhook` (with `--event` and
`--webhook-metadata`), `--threshold`, `--disabled`; the operation's own body is `--request JSON`, and the
common parts of it have flags of their own (`--prompt`, `--schema` for ai-extract, `--all` for markdown,
`--full-page`, `--width`, `--height` for screenshots, `--wait-for`, `--wait-time`, `--max-age` for any).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from webcapture_client.http import CliFailure, call
from webcapture_client.jobs import data_of, read, where

OPERATIONS = ("screenshot", "markdown", "ai-extract")
EVENTS = ("monitor.changed", "monitor.checked", "monitor.failed")
POLL_S = 1.0
PAGE_SIZE = 100
# The request flags and the one operation each belongs to (None: any operation).
_REQUEST_FLAGS = {"prompt": "ai-extract", "schema": "ai-extract", "all": "markdown",
                  "full_page": "screenshot", "width": "screenshot", "height": "screenshot",
                  "wait_for": None, "wait_time": None, "max_age": None}


def _path(monitor_id: str, suffix: str = "") -> str:
    return f"/v1/monitors/{quote(monitor_id, safe='')}{suffix}"


def create_monitor(api_url: str, api_key: str, body: dict[str, Any]) -> dict[str, Any]:
    return data_of(call(api_url, api_key, "/v1/monitors", body))


def list_monitors(api_url: str, api_key: str) -> dict[str, Any]:
    """`{monitors, total}`: every monitor, through `next` should the API page the list."""
    monitors: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        query = f"?{urlencode({'cursor': cursor})}" if cursor else ""
        data = read(api_url, api_key, f"/v1/monitors{query}")
        monitors += data.get("monitors", [])
        following = data.get("next")
        if not following:
            return {"monitors": monitors, "total": data.get("total", len(monitors))}
        if following == cursor:
            raise CliFailure(f"the API answered the cursor {cursor} as its own next: the list is stuck", 7)
        cursor = str(following)


def get_monitor(api_url: str, api_key: str, monitor_id: str) -> dict[str, Any]:
    return read(api_url, api_key, _path(monitor_id))


def update_monitor(api_url: str, api_key: str, monitor_id: str, changes: dict[str, Any]) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(monitor_id), changes, method="PATCH"))


def delete_monitor(api_url: str, api_key: str, monitor_id: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(monitor_id), None, method="DELETE"))


def run_monitor(api_url: str, api_key: str, monitor_id: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(monitor_id, "/run"), {}))


def checks(api_url: str, api_key: str, monitor_id: str, most: int | None = None) -> list[dict[str, Any]]:
    """The monitor's checks, newest first, page after page until `next` is null (a short page is not the
    end: only `next` says so); `most`: stop after that many."""
    found: list[dict[str, Any]] = []
    cursor: str | None = None
    while most is None or len(found) < most:
        size = PAGE_SIZE if most is None else min(PAGE_SIZE, most - len(found))
        query = {"limit": size, **({"cursor": cursor} if cursor else {})}
        page = read(api_url, api_key, _path(monitor_id, f"/checks?{urlencode(query)}"))
        found += page.get("checks", [])
        following = page.get("next")
        if following is None:
            break
        if following == cursor:
            raise CliFailure(f"the API answered the cursor {cursor} as its own next: the checks are stuck", 7)
        cursor = str(following)
    return found if most is None else found[:most]


def wait_for_check(api_url: str, api_key: str, monitor_id: str, check_id: str, *,
                   quiet: bool) -> dict[str, Any]:
    """The check once it has run (completed or failed), polled through the checks."""
    said = False
    while True:
        found = next((c for c in checks(api_url, api_key, monitor_id) if c.get("checkId") == check_id), None)
        if found is not None and found.get("status") != "queued":
            return found
        if not quiet and not said:
            print(f"webcapture: waiting for check {check_id} of {monitor_id}", file=sys.stderr)
            said = True
        time.sleep(POLL_S)


def _json_argument(flag: str, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise CliFailure(f"{flag} is not JSON: {error}", 2) from None


def _request_flags(args: argparse.Namespace) -> dict[str, Any]:
    """The request flags given (each defaults to None, so `--no-full-page` counts)."""
    return {name: getattr(args, name) for name in _REQUEST_FLAGS if getattr(args, name) is not None}


def request_body(args: argparse.Namespace, operation: str, current: dict[str, Any]) -> dict[str, Any] | None:
    """The operation's body: --request (else `current`) with the request flags over it; None when no flag
    touches it. A flag of another operation is a usage error, not a field the API would ignore."""
    given = _request_flags(args)
    if args.request is None and not given:
        return None
    for name in given:
        wanted = _REQUEST_FLAGS[name]
        if wanted is not None and wanted != operation:
            flag = "--" + name.replace("_", "-")
            raise CliFailure(f"{flag} is for --operation {wanted} monitors, not {operation}", 2)
    body = dict(current) if args.request is None else _json_argument("--request", args.request)
    if not isinstance(body, dict):
        raise CliFailure("--request must be a JSON object: the operation's body without url", 2)
    simple = {"prompt": "prompt", "wait_for": "waitForSelector", "wait_time": "waitTime", "max_age": "maxAge"}
    body.update({field: given[name] for name, field in simple.items() if name in given})
    if "schema" in given:
        schema = _json_argument("--schema", Path(given["schema"]).read_text(encoding="utf-8"))
        body["response_format"] = {"type": "json_schema", "schema": schema}
    if "all" in given:
        body["onlyMainContent"] = False
    if "full_page" in given:
        body["screenshotOptions"] = {**body.get("screenshotOptions", {}), "fullPage": given["full_page"]}
    viewport = {name: given[name] for name in ("width", "height") if name in given}
    if viewport:
        body["viewport"] = {**body.get("viewport", {}), **viewport}
    return body


def _webhook(args: argparse.Namespace) -> dict[str, Any] | None:
    if args.webhook is None:
        if args.event or args.webhook_metadata:
            raise CliFailure("--event and --webhook-metadata need --webhook URL", 2)
        return None
    webhook: dict[str, Any] = {"url": args.webhook}
    if args.event:
        webhook["events"] = list(dict.fromkeys(args.event))
    if args.webhook_metadata:
        webhook["metadata"] = _json_argument("--webhook-metadata", args.webhook_metadata)
    return webhook


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The fields create and update share, as given."""
    fields = {"schedule": args.schedule, "timezone": args.timezone, "name": args.name,
              "webhook": _webhook(args),
              "diff": None if args.threshold is None else {"threshold": args.threshold}}
    return {name: value for name, value in fields.items() if value is not None}


def _show(data: dict[str, Any]) -> None:
    warning = data.get("warning")
    if warning:
        print(f"webcapture: warning: {warning}", file=sys.stderr)
    print(json.dumps({k: v for k, v in data.items() if k != "warning"}, indent=2, ensure_ascii=False))


def _create(args: argparse.Namespace, api_url: str, api_key: str) -> int:
    body = {"url": args.url, "operation": args.operation, **settings(args)}
    request = request_body(args, args.operation, {})
    if request is not None:
        body["request"] = request
    if args.disabled:
        body["enabled"] = False
    _show(create_monitor(api_url, api_key, body))
    return 0


def _update(args: argparse.Namespace, api_url: str, api_key: str) -> int:
    changes = settings(args)
    if args.no_webhook:
        if "webhook" in changes:
            raise CliFailure("--no-webhook removes the webhook: give it without --webhook", 2)
        changes["webhook"] = None
    if args.enabled is not None:
        changes["enabled"] = args.enabled
    if args.request is not None or _request_flags(args):
        # The request is replaced whole by a PATCH: the flags change the monitor's own, read first.
        monitor = get_monitor(api_url, api_key, args.id)
        changes["request"] = request_body(args, str(monitor["operation"]), monitor.get("request") or {})
    if not changes:
        raise CliFailure("nothing to change: give at least one flag (see --help)", 2)
    _show(update_monitor(api_url, api_key, args.id, changes))
    return 0


def _run_now(args: argparse.Namespace, api_url: str, api_key: str) -> int:
    queued = run_monitor(api_url, api_key, args.id)
    if not args.wait:
        _show(queued)
        return 0
    check = wait_for_check(api_url, api_key, args.id, str(queued["checkId"]), quiet=args.quiet)
    _show(check)
    if check.get("status") == "failed":
        error = check.get("error") or {}
        print(f"webcapture: check {check.get('checkId')} failed: {error.get('code')}: {error.get('message')}",
              file=sys.stderr)
        return 7
    return 0


def _run(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    action = args.monitors_action
    if action == "create":
        return _create(args, api_url, api_key)
    if action == "update":
        return _update(args, api_url, api_key)
    if action == "run":
        return _run_now(args, api_url, api_key)
    if action == "list":
        _show(list_monitors(api_url, api_key))
    elif action == "get":
        _show(get_monitor(api_url, api_key, args.id))
    elif action == "delete":
        _show(delete_monitor(api_url, api_key, args.id))
    else:
        if args.limit is not None and args.limit < 1:
            raise CliFailure("--limit must be 1 or more", 2)
        _show({"monitorId": args.id, "checks": checks(api_url, api_key, args.id, args.limit)})
    return 0


def _settings_flags(parser: argparse.ArgumentParser, *, create: bool) -> None:
    parser.add_argument("--schedule", required=create, metavar="EXPR",
                        help="rate(N minutes|hours|days) or cron(min hour day month weekday year), "
                             "e.g. 'rate(1 hour)', 'cron(0 9 ? * MON-FRI *)'")
    parser.add_argument("--timezone", metavar="TZ", help="the IANA time zone a cron is read in (default UTC)")
    parser.add_argument("--name", help="the monitor's name, 1 to 100 characters (default: the URL)")
    parser.add_argument("--webhook", metavar="URL", help="where the monitor's events are POSTed (signed)")
    parser.add_argument("--event", action="append", choices=EVENTS,
                        help="an event the webhook gets (repeatable; default monitor.changed)")
    parser.add_argument("--webhook-metadata", metavar="JSON", help="a JSON object echoed in every event")
    parser.add_argument("--threshold", type=float,
                        help="screenshots: how much a pixel's channel may differ, 0 to 1 (default 0.1)")
    parser.add_argument("--request", metavar="JSON",
                        help="the operation's request body without url, as a JSON object"
                             + ("" if create else " (replaces the monitor's; the flags below go over it)"))
    parser.add_argument("--prompt", help="ai-extract: what to extract")
    parser.add_argument("--schema", metavar="FILE", help="ai-extract: a JSON Schema file for the answer")
    parser.add_argument("--all", action="store_true", default=None,
                        help="markdown: everything visible, not only the main content")
    parser.add_argument("--full-page", action=argparse.BooleanOptionalAction, default=None,
                        help="screenshot: the whole page (the API's default), or only the viewport")
    parser.add_argument("--width", type=int, help="screenshot: viewport width in CSS pixels")
    parser.add_argument("--height", type=int, help="screenshot: viewport height in CSS pixels")
    parser.add_argument("--wait-for", metavar="CSS", help="wait for this element (waitForSelector)")
    parser.add_argument("--wait-time", type=int, metavar="MS", help="extra idle time after load (waitTime)")
    parser.add_argument("--max-age", type=int, metavar="SECONDS",
                        help="a check may be answered from the cache when this recent (maxAge)")


def add_monitor_commands(commands: Any, where_parser: argparse.ArgumentParser) -> None:
    monitors = commands.add_parser("monitors", help="monitors: a page checked on a schedule, its changes")
    actions = monitors.add_subparsers(dest="monitors_action", required=True, metavar="ACTION",
                                      help="create, list, get, update, delete, run or checks")
    create = actions.add_parser("create", parents=[where_parser], help="watch a page on a schedule")
    create.add_argument("url", help="the page, http or https")
    create.add_argument("--operation", required=True, choices=OPERATIONS,
                        help="what each check does with the page, compared with the last check")
    _settings_flags(create, create=True)
    create.add_argument("--disabled", action="store_true", help="create it paused (enable it with update)")
    actions.add_parser("list", parents=[where_parser], help="your monitors, oldest first, as JSON")
    get = actions.add_parser("get", parents=[where_parser], help="a monitor, with its next run")
    get.add_argument("id", help="the monitor's id (monitorId)")
    update = actions.add_parser("update", parents=[where_parser],
                                help="change a monitor (not its url or operation: that is a new monitor)")
    update.add_argument("id", help="the monitor's id (monitorId)")
    _settings_flags(update, create=False)
    update.add_argument("--no-webhook", action="store_true", help="remove the monitor's webhook")
    enabled = update.add_mutually_exclusive_group()
    enabled.add_argument("--enable", dest="enabled", action="store_const", const=True,
                         help="let the schedule run checks again")
    enabled.add_argument("--disable", dest="enabled", action="store_const", const=False,
                         help="pause the schedule (run still checks at once)")
    delete = actions.add_parser("delete", parents=[where_parser], help="delete a monitor and its schedule")
    delete.add_argument("id", help="the monitor's id (monitorId)")
    run = actions.add_parser("run", parents=[where_parser], help="check a monitor now (enabled or not)")
    run.add_argument("id", help="the monitor's id (monitorId)")
    run.add_argument("--wait", action="store_true",
                     help="wait for the check to run and print it (exit 7 if it failed)")
    run.add_argument("--quiet", action="store_true", help="nothing on stderr while waiting")
    listed = actions.add_parser("checks", parents=[where_parser],
                                help="a monitor's checks, newest first, every page (JSON)")
    listed.add_argument("id", help="the monitor's id (monitorId)")
    listed.add_argument("--limit", type=int, metavar="N", help="only the newest N checks")
    monitors.set_defaults(run=_run)
