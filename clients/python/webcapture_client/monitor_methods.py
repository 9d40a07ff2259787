"""The SDK's monitor methods (docs/monitors.md of the service): a page checked on a schedule, its checks read
newest first through every cursor. `Client` has them; `AsyncClient` awaits the same."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

from webcapture_client import results as typed
from webcapture_client.errors import WebcaptureError

MONITORS = "/v1/monitors"


def monitor_path(monitor_id: str, suffix: str = "") -> str:
    return f"{MONITORS}/{quote(monitor_id, safe='')}{suffix}"


def checks_path(monitor_id: str, limit: int | None, cursor: str | None) -> str:
    query = {name: value for name, value in (("limit", limit), ("cursor", cursor)) if value is not None}
    return monitor_path(monitor_id, "/checks") + (f"?{urlencode(query)}" if query else "")


def stuck_cursor(path: str, cursor: str) -> WebcaptureError:
    """A page whose `next` is the cursor it was asked with would be read again forever."""
    return WebcaptureError(f"{path} answered its own cursor as next ({cursor}): the paging is stuck",
                           code="UNEXPECTED_ANSWER", status=200)


class MonitorMethods:
    """Mixed into `Client`, whose `_data` makes the calls."""

    def _data(self, method: str, path: str, body: dict[str, Any] | None = None,
              headers: dict[str, str] | None = None) -> dict[str, Any]:
        raise NotImplementedError

    def create_monitor(self, url: str, operation: str, schedule: str, **fields: Any) -> typed.Monitor:
        """POST /v1/monitors: watch `url` with `operation` (screenshot, markdown, ai-extract) on `schedule`
        (`rate(1 hour)`, `cron(0 9 ? * MON-FRI *)`); the other fields as the API names them: `request`
        (the operation's body without url), `timezone`, `name`, `webhook`, `diff`, `enabled`."""
        body = {"url": url, "operation": operation, "schedule": schedule, **fields}
        return typed.monitor(self._data("POST", MONITORS, body))

    def monitors(self) -> list[typed.Monitor]:
        """GET /v1/monitors: every monitor of yours, oldest first (through `next` if the API pages it)."""
        found: list[typed.Monitor] = []
        cursor: str | None = None
        while True:
            path = MONITORS + (f"?{urlencode({'cursor': cursor})}" if cursor else "")
            data = self._data("GET", path)
            found += [typed.monitor(item) for item in data.get("monitors", [])]
            following = data.get("next")
            if not following:
                return found
            if following == cursor:
                raise stuck_cursor(MONITORS, following)
            cursor = str(following)

    def get_monitor(self, monitor_id: str) -> typed.Monitor:
        return typed.monitor(self._data("GET", monitor_path(monitor_id)))

    def update_monitor(self, monitor_id: str, **fields: Any) -> typed.Monitor:
        """PATCH /v1/monitors/{id}: any field but url and operation; `webhook=None` removes the webhook."""
        return typed.monitor(self._data("PATCH", monitor_path(monitor_id), fields))

    def delete_monitor(self, monitor_id: str) -> dict[str, Any]:
        """DELETE /v1/monitors/{id}: the monitor and its schedule (`{monitorId, deleted: true}`)."""
        return self._data("DELETE", monitor_path(monitor_id))

    def run_monitor(self, monitor_id: str) -> typed.MonitorRun:
        """POST /v1/monitors/{id}/run: a check now (queued; see `wait_for_check`)."""
        return typed.monitor_run(self._data("POST", monitor_path(monitor_id, "/run"), {}))

    def monitor_checks_page(self, monitor_id: str, *, limit: int | None = None,
                            cursor: str | None = None) -> typed.MonitorChecks:
        """GET /v1/monitors/{id}/checks: one page, newest first (`limit` 1-100, from `cursor`)."""
        return typed.monitor_checks(self._data("GET", checks_path(monitor_id, limit, cursor)))

    def monitor_checks(self, monitor_id: str, *, page_size: int = 100) -> Iterator[typed.MonitorCheck]:
        """Every check, newest first, page after page until the API says there is no older one (a page may
        hold fewer than `page_size` and still not be the last: only `next` ends it)."""
        cursor: str | None = None
        while True:
            page = self.monitor_checks_page(monitor_id, limit=page_size, cursor=cursor)
            yield from page.checks
            if page.next is None:
                return
            if page.next == cursor:
                raise stuck_cursor(checks_path(monitor_id, page_size, cursor), page.next)
            cursor = page.next

    def find_check(self, monitor_id: str, check_id: str) -> typed.MonitorCheck | None:
        """The check `check_id` of the monitor, read through the pages until it is found."""
        return next((check for check in self.monitor_checks(monitor_id) if check.check_id == check_id), None)

    def wait_for_check(self, monitor_id: str, check_id: str, *, poll_s: float = 1.0,
                       timeout_s: float | None = None) -> typed.MonitorCheck:
        """Poll until the check has run (completed or failed). TimeoutError after `timeout_s` (the check
        goes on)."""
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            check = self.find_check(monitor_id, check_id)
            if check is not None and check.finished:
                return check
            if deadline is not None and time.monotonic() >= deadline:
                state = check.status if check is not None else "not listed yet"
                raise TimeoutError(f"check {check_id} of {monitor_id} still {state} after {timeout_s} s")
            time.sleep(poll_s)
