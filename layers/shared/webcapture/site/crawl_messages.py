"""A crawl's SQS messages (docs/crawl-and-map.md#crawl-and-map): one per page not crawled by its finder
(site.crawl_sweep), and one per share of recorded pages a sweeping worker hands to another (`riders`), on
the crawl function's own queue. Each carries the crawl's request, so a worker needs nothing else to load
the page; a wait (a busy host, a busy key) is the same message sent again with a delay, which survives the
function that sent it."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from webcapture.aws import sqs_client
from webcapture.jobs.work_queue import send_in_batches, sqs_delay
from webcapture.settings import get_settings


@dataclass(frozen=True)
class PageMessage:
    job_id: str
    index: int  # the page's result index
    url: str  # canonical
    depth: int
    user_id: str
    key_hash: str | None
    key_id: str | None
    request: dict[str, Any]  # the crawl's body as validated at submit
    # A share handed over (site.crawl_sweep): the recorded pages (index, URL, depth) to sweep, the first
    # of them the message's own page, and the host slot taken for the worker that receives it.
    riders: tuple[tuple[int, str, int], ...] = ()
    lease: str | None = None

    def to_json(self) -> str:
        body: dict[str, Any] = {"jobId": self.job_id, "index": self.index, "url": self.url,
                                "depth": self.depth, "userId": self.user_id, "keyHash": self.key_hash,
                                "keyId": self.key_id, "request": self.request}
        if self.riders:
            body.update(riders=[list(rider) for rider in self.riders], lease=self.lease)
        return json.dumps(body, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> PageMessage:
        raw = json.loads(text)
        return cls(job_id=str(raw["jobId"]), index=int(raw["index"]), url=str(raw["url"]),
                   depth=int(raw["depth"]), user_id=str(raw["userId"]), key_hash=raw.get("keyHash"),
                   key_id=raw.get("keyId"), request=dict(raw["request"]),
                   riders=tuple((int(index), str(url), int(depth))
                                for index, url, depth in raw.get("riders", [])),
                   lease=raw.get("lease"))

    def page(self, index: int, url: str, depth: int) -> PageMessage:
        """The message of another page of the same crawl."""
        return PageMessage(self.job_id, index, url, depth, self.user_id, self.key_hash, self.key_id,
                           self.request)

    def share(self, riders: list[tuple[int, str, int]], lease: str | None) -> PageMessage:
        """The message handing `riders` (recorded pages, the first one naming the message) to a worker,
        with a slot of the host taken for it (`lease`), or none: it takes one itself."""
        index, url, depth = riders[0]
        return replace(self.page(index, url, depth), riders=tuple(riders), lease=lease)


def _queue_url() -> str:
    url = get_settings().crawl_queue
    if not url:
        raise RuntimeError("no crawl queue is configured (CRAWL_QUEUE_URL)")
    return url


def send_pages(messages: list[PageMessage]) -> None:
    """Queue every page; raises if any could not be sent (after retrying the ones SQS refused)."""
    if not messages:
        return
    url, client = _queue_url(), sqs_client()
    send_in_batches(lambda entries: client.send_message_batch(QueueUrl=url, Entries=entries), messages,
                    "page(s) of the crawl")


def send_page_later(body: str, delay_s: float) -> None:
    """A page back on the crawl queue, delayed."""
    sqs_client().send_message(QueueUrl=_queue_url(), MessageBody=body, DelaySeconds=sqs_delay(delay_s))
