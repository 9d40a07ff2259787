"""What the SDK's calls answer: the API's `data` objects as dataclasses (snake_case names of the API's
fields). Each keeps the whole `data` as `raw`, so a field added to the API is readable before the SDK names
it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Data = dict[str, Any]


@dataclass(frozen=True)
class Screenshot:
    image: bytes
    metadata: Data
    permanent_url: str | None = None
    file_id: str | None = None
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Pdf:
    pdf: bytes
    metadata: Data
    permanent_url: str | None = None
    file_id: str | None = None
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Markdown:
    markdown: str
    metadata: Data
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Content:
    html: str
    metadata: Data
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Link:
    url: str
    text: str | None = None


@dataclass(frozen=True)
class Links:
    links: list[Link]
    metadata: Data
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Extraction:
    """`extracted` for a JSON answer (responseType json), `text` for a text one."""

    extracted: Any
    text: str | None
    metadata: Data
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class SiteLink:
    url: str
    title: str | None = None


@dataclass(frozen=True)
class SiteMap:
    links: list[SiteLink]
    total: int
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class JobResult:
    """One item of a batch or one page of a crawl: `data` when completed, `error` when not."""

    index: int
    status: str
    data: Data | None = None
    error: Data | None = None


@dataclass(frozen=True)
class JobStatus:
    """A job as `GET /v1/jobs/{jobId}` answers it: its counts and one page of results (`next`: the cursor
    of the following page, None on the last)."""

    job_id: str
    operation: str
    status: str
    total: int
    completed: int
    failed: int
    cancelled: int
    results: list[JobResult]
    next: str | None
    raw: Data = field(default_factory=dict, repr=False)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def done(self) -> int:
        """Items that have ended, however they ended."""
        return self.completed + self.failed + self.cancelled


FINISHED = frozenset({"completed", "failed", "cancelled"})


def _metadata(data: Data) -> Data:
    metadata = data.get("metadata")
    return metadata if isinstance(metadata, dict) else {}


def markdown(data: Data) -> Markdown:
    return Markdown(str(data.get("markdown", "")), _metadata(data), data.get("warning"), data)


def content(data: Data) -> Content:
    return Content(str(data.get("html", "")), _metadata(data), data.get("warning"), data)


def links(data: Data) -> Links:
    found = [Link(str(link["url"]), link.get("text")) for link in data.get("links", [])]
    return Links(found, _metadata(data), data.get("warning"), data)


def extraction(data: Data) -> Extraction:
    return Extraction(data.get("extracted"), data.get("text"), _metadata(data), data.get("warning"), data)


def site_map(data: Data) -> SiteMap:
    found = [SiteLink(str(link["url"]), link.get("title")) for link in data.get("links", [])]
    return SiteMap(found, int(data.get("total", len(found))), data.get("warning"), data)


def job_status(data: Data) -> JobStatus:
    results = [JobResult(int(item["index"]), str(item["status"]), item.get("data"), item.get("error"))
               for item in data.get("results", [])]
    return JobStatus(str(data["jobId"]), str(data.get("operation", "")), str(data["status"]),
                     int(data.get("total", 0)), int(data.get("completed", 0)), int(data.get("failed", 0)),
                     int(data.get("cancelled", 0)), results, data.get("next"), data)


@dataclass(frozen=True)
class Monitor:
    """A monitor as the monitor routes answer it (docs/monitors.md): a page checked on a schedule."""

    monitor_id: str
    name: str
    url: str
    operation: str
    request: Data
    schedule: str
    timezone: str | None
    webhook: Data | None
    diff: Data
    enabled: bool
    created_at: str
    updated_at: str
    next_run_at: str | None
    warning: str | None = None
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class MonitorRun:
    """A check asked for now (`POST /v1/monitors/{id}/run`): queued, listed by `check_id` among the checks."""

    monitor_id: str
    check_id: str
    status: str
    raw: Data = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class MonitorCheck:
    """One check: `queued`, then `completed` or `failed`; `change_status` against the last completed check
    (`new`, `same`, `changed`; None until completed), `diff` what changed, `data` the operation's answer."""

    check_id: str
    at: str
    status: str
    change_status: str | None
    diff: Data | None
    data: Data | None
    credits_cost: int
    error: Data | None = None
    raw: Data = field(default_factory=dict, repr=False)

    @property
    def finished(self) -> bool:
        return self.status != "queued"


@dataclass(frozen=True)
class MonitorChecks:
    """One page of a monitor's checks, newest first; `next`: the older page's cursor (None on the last)."""

    monitor_id: str
    checks: list[MonitorCheck]
    next: str | None
    raw: Data = field(default_factory=dict, repr=False)


def monitor(data: Data) -> Monitor:
    diff = data.get("diff")
    return Monitor(str(data["monitorId"]), str(data.get("name", "")), str(data.get("url", "")),
                   str(data.get("operation", "")), data.get("request") or {}, str(data.get("schedule", "")),
                   data.get("timezone"), data.get("webhook"), diff if isinstance(diff, dict) else {},
                   bool(data.get("enabled", True)), str(data.get("createdAt", "")),
                   str(data.get("updatedAt", "")), data.get("nextRunAt"), data.get("warning"), data)


def monitor_run(data: Data) -> MonitorRun:
    return MonitorRun(str(data["monitorId"]), str(data["checkId"]), str(data.get("status", "")), data)


def monitor_check(data: Data) -> MonitorCheck:
    return MonitorCheck(str(data["checkId"]), str(data.get("at", "")), str(data["status"]),
                        data.get("changeStatus"), data.get("diff"), data.get("data"),
                        int(data.get("creditsCost", 0)), data.get("error"), data)


def monitor_checks(data: Data) -> MonitorChecks:
    return MonitorChecks(str(data["monitorId"]), [monitor_check(item) for item in data.get("checks", [])],
                         data.get("next"), data)
