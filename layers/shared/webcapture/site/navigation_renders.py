"""Which page of an `auto` crawl renders a navigation a script builds (docs/fast-path.md#when-auto-renders).

The pages that share such a menu (fastpath.render_decision.script_built_navigation names it) get the same
links from it: one rendered page finds them all, and the others are fetched. The first page of the crawl to
ask is the one: `sk = nav#<name>` in the crawl's partition, written once with a condition that it is not
there yet, holding that page's URL. Every worker asks the same item, so one page renders even when the
page is then run from its own message by another worker, which asks again and finds itself named. A worker
keeps what it learnt for the rest of its life: one write or read per name and worker, not per page.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Final

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table
from webcapture.jobs.job_store import RETENTION
from webcapture.settings import get_settings
from webcapture.site.crawl_store import failed_condition, job_pk

_KEPT: Final = 4096  # (crawl, name) pairs a worker remembers, the least recently asked forgotten first
_renderers: OrderedDict[tuple[str, str], str] = OrderedDict()


def renders_navigation(job_id: str, name: str, url: str) -> bool:
    """Whether the page at `url` is the one of crawl `job_id` that renders the navigation `name`."""
    key = (job_id, name)
    renderer = _renderers.get(key)
    if renderer is None:
        renderer = _renderer(job_id, name, url)
        _renderers[key] = renderer
        if len(_renderers) > _KEPT:
            _renderers.popitem(last=False)
    _renderers.move_to_end(key)
    return renderer == url


def _renderer(job_id: str, name: str, url: str) -> str:
    table = dynamodb_table(get_settings().jobs_table)
    key = {"pk": job_pk(job_id), "sk": f"nav#{name}"}
    try:
        table.put_item(Item={**key, "url": url, "ttl": int(time.time() + RETENTION.total_seconds())},
                       ConditionExpression="attribute_not_exists(pk)")
        return url
    except ClientError as error:
        if not failed_condition(error):
            raise
    stored = table.get_item(Key=key, ConsistentRead=True).get("Item")
    return str(stored["url"]) if stored else url
