"""An incremental crawl (docs/crawl-and-map.md#incremental-crawl): each page compared with what an earlier
crawl of the same user recorded for the same canonical URL.

The earlier page's validators (ETag, Last-Modified) and its content's hash are stored on its result's item
beside the body (never answered). A page the earlier crawl completed is fetched conditionally; a 304, or
the same content hash where the target gave no validators, makes it `same`: no outputs, no charge, and
`sameAs` names the earlier result. A 304 carries no links, so the pages the earlier crawl recorded from it
are followed instead: kept on its result's item (compressed, `children`), so a `same` page costs one read
of that item, not a query of every URL the earlier crawl recorded. When every page of the crawl has its
result, and before the crawl is given its final status, the earlier crawl's pages not reached now are
written as results with `status: "removed"`, after the crawl's own.
"""

from __future__ import annotations

import hashlib
import json
import time
import zlib
from dataclasses import dataclass
from typing import Any, Final

from webcapture.aws import dynamodb_table
from webcapture.errors import NotFound
from webcapture.fastpath.http_page import Validators
from webcapture.jobs import job_store
from webcapture.jobs.job_store import RETENTION, Job
from webcapture.settings import get_settings
from webcapture.site.crawl_store import claimed_by, job_pk, url_sk

_OUTPUTS: Final = ("markdown", "html", "links")
# The children kept on a result's item at most (compressed): with a body of up to
# job_store.INLINE_RESULT_BYTES inline, the item stays under DynamoDB's 400 KB. A page with more (tens of
# thousands of new links) keeps none, and its `same` page queries them instead.
CHILDREN_MAX_BYTES: Final = 64_000
_BATCH_GET_KEYS: Final = 100


@dataclass(frozen=True)
class EarlierPage:
    job_id: str
    index: int
    validators: Validators
    content_hash: str | None
    kept_children: list[str] | None = None  # the pages it recorded, when its item keeps them
    body_hash: str | None = None  # its served HTML's (crawl_page.body_hash), when the http engine read it

    def same_as(self) -> dict[str, Any]:
        return {"jobId": self.job_id, "index": self.index}

    def children(self) -> list[str]:
        """The pages the earlier crawl recorded from this one (what a 304 would have linked to)."""
        if self.kept_children is not None:
            return self.kept_children
        return [claimed.url for claimed in claimed_by(self.job_id, self.index)]


def _table() -> Any:
    return dynamodb_table(get_settings().jobs_table)


def check_since(since: str, user_id: str) -> None:
    """404 NOT_FOUND, before anything is reserved, unless `since` is a crawl of this user still kept."""
    earlier = job_store.get_job(since)
    if earlier is None or earlier.user_id != user_id or earlier.operation != "crawl":
        raise NotFound(f"since: no crawl {since} of yours to compare with (unknown, or expired: crawls are "
                       "kept 7 days)")


def earlier_page(since: str, url: str) -> EarlierPage | None:
    """What the earlier crawl completed at this canonical URL, or None (not reached, or not completed)."""
    return earlier_pages(since, [url]).get(url)


def earlier_pages(since: str, urls: list[str]) -> dict[str, EarlierPage]:
    """earlier_page for many URLs at once (two batch reads per 100): the ones the earlier crawl completed."""
    table_name = get_settings().jobs_table
    recorded = _batch_read(table_name, [{"pk": job_pk(since), "sk": url_sk(url)} for url in urls],
                           "#u, #i", {"#u": "url", "#i": "index"})
    index_of = {item["url"]: int(item["index"]) for item in recorded}
    results = _batch_read(table_name, [{"pk": job_pk(since), "sk": f"result#{index:05d}"}
                                       for index in sorted(set(index_of.values()))],
                          "#i, #st, etag, lastModified, contentHash, children, bodyHash",
                          {"#i": "index", "#st": "status"})
    completed = {int(item["index"]): item for item in results if item.get("status") == "completed"}
    found: dict[str, EarlierPage] = {}
    for url, index in index_of.items():
        result = completed.get(index)
        if result is not None:
            found[url] = EarlierPage(since, index, Validators(result.get("etag"), result.get("lastModified")),
                                     result.get("contentHash"), _unpacked(result.get("children")),
                                     result.get("bodyHash"))
    return found


def _batch_read(table_name: str, keys: list[dict[str, str]], projection: str,
                names: dict[str, str]) -> list[dict[str, Any]]:
    """Every item of `keys` that exists (what DynamoDB leaves unprocessed is asked for again)."""
    resource = _table().meta.client
    items: list[dict[str, Any]] = []
    for start in range(0, len(keys), _BATCH_GET_KEYS):
        request: dict[str, Any] = {table_name: {"Keys": keys[start:start + _BATCH_GET_KEYS],
                                                "ProjectionExpression": projection,
                                                "ExpressionAttributeNames": names}}
        while request:
            answer = resource.batch_get_item(RequestItems=request)
            items += answer.get("Responses", {}).get(table_name, [])
            request = answer.get("UnprocessedKeys") or {}
    return items


def children_attribute(urls: list[str]) -> dict[str, Any]:
    """The pages a page recorded (canonical URLs; all of them: its first delivery's), as the attribute
    its result's item keeps for the next incremental crawl; nothing when they do not fit."""
    packed = zlib.compress("\n".join(urls).encode(), 6)
    return {"children": packed} if len(packed) <= CHILDREN_MAX_BYTES else {}


def _unpacked(stored: Any) -> list[str] | None:
    if stored is None:
        return None
    packed = stored.value if hasattr(stored, "value") else bytes(stored)  # boto3 reads a Binary
    return [url for url in zlib.decompress(packed).decode().split("\n") if url]


def content_hash(data: dict[str, Any]) -> str:
    """The page's outputs' hash: what decides `same` where the target sent no validators."""
    outputs = {name: data[name] for name in _OUTPUTS if name in data}
    return hashlib.sha256(json.dumps(outputs, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def page_attributes(validators: Validators, digest: str, body: str | None = None) -> dict[str, Any]:
    attributes: dict[str, Any] = {"contentHash": digest}
    if body:
        attributes["bodyHash"] = body
    if validators.etag:
        attributes["etag"] = validators.etag
    if validators.last_modified:
        attributes["lastModified"] = validators.last_modified
    return attributes


def _urls(job_id: str) -> dict[str, int]:
    """Every canonical URL a crawl recorded, with its result's index."""
    found: dict[str, int] = {}
    arguments: dict[str, Any] = {
        "KeyConditionExpression": "pk = :pk AND begins_with(sk, :url)",
        "ExpressionAttributeValues": {":pk": job_pk(job_id), ":url": "url#"},
        "ProjectionExpression": "#u, #i", "ExpressionAttributeNames": {"#u": "url", "#i": "index"},
    }
    table = _table()
    while True:
        answer = table.query(**arguments)
        found.update({item["url"]: int(item["index"]) for item in answer.get("Items", [])})
        if "LastEvaluatedKey" not in answer:
            return found
        arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]


def _every_earlier_page_reached(job: Job) -> bool:
    """Whether the crawl compared a page with each of the earlier crawl's URLs (each `same` or `changed`
    page is one of them, and its `total` counts them all, or more): then none is removed, and neither
    crawl's URLs need reading."""
    assert job.since is not None
    earlier = job_store.get_job(job.since)
    changes = job.changes or {}
    return earlier is not None and changes.get("same", 0) + changes.get("changed", 0) >= earlier.total


def write_removed(job: Job) -> int:
    """Before the crawl settles: the earlier crawl's pages it did not reach, written as `removed` results
    after its own (indexes from `total` on); answers how many, which the settling write adds to
    `changes.removed` in the same write that makes the crawl terminal, so a finished crawl's results and
    counters never change afterwards. Writing them is idempotent (the same items at the same keys): two
    calls racing to settle both write them, and only the one whose settling write lands counts them."""
    if job.since is None or _every_earlier_page_reached(job):
        return 0
    now = set(_urls(job.job_id))
    removed = sorted((index, url) for url, index in _urls(job.since).items() if url not in now)
    if not removed:
        return 0
    ttl = int(time.time() + RETENTION.total_seconds())
    with _table().batch_writer() as batch:
        for offset, (index, url) in enumerate(removed):
            body = {"data": {"url": url, "changeStatus": "removed", "sameAs": {"jobId": job.since,
                                                                              "index": index}}}
            batch.put_item(Item={"pk": job_pk(job.job_id), "sk": f"result#{job.total + offset:05d}",
                                 "index": job.total + offset, "status": "removed", "ttl": ttl,
                                 "body": json.dumps(body, separators=(",", ":"), ensure_ascii=False)})
    return len(removed)
