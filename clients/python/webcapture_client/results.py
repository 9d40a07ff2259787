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
