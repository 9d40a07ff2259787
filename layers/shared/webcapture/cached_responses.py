"""`maxAge` on the HTTP edge (CONTRACT 19): a browser endpoint's answer from the cache, or made and kept.

A hit is answered before anything is metered or launched: no credits reserved (creditsCost 0), no
concurrency slot, no browser; the request is still counted on the key. The lookup (an S3 GET) and that
count (an UpdateItem) are independent, so they go out at once and a hit waits for one round trip, not two;
a miss's reservation then leaves the count out. Only answers that `produce` returns are stored: an error
raises, and is never cached.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from botocore.exceptions import BotoCoreError, ClientError

from webcapture import cache, metering
from webcapture.answer_forms import FileAnswer, prefers_json
from webcapture.auth.caller import Caller
from webcapture.credits import Operation
from webcapture.edge.responses import file_response
from webcapture.models.page_control import PageControl

CACHE_HEADER = "X-Cache"
# A hit's bytes form has no metadata to carry cachedAt; this header does.
CACHED_AT_HEADER = "X-Cached-At"


# One request at a time per container (Lambda): one thread is enough, made once, not per request.
_LOOKUPS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="webcapture-cache-lookup")


def file_form(wants_base64: bool, accept: str | None, binary_type: str) -> str:
    """Which of a file endpoint's answers a request gets (bytes or JSON): part of its cache key."""
    return "json" if wants_base64 or prefers_json(accept, binary_type) else "bytes"


def _count(caller: Caller) -> None:
    # CONTRACT 3 counts every authenticated request; a key store that is down must not fail a hit.
    with suppress(BotoCoreError, ClientError):
        metering.count_request(caller)


def cached_response(app: APIGatewayRestResolver, caller: Caller, operation: Operation, request: PageControl,
                    produce: Callable[[], FileAnswer], *, form: str = "", large: bool = False,
                    ) -> Response[Any]:
    """The cached answer when `request.maxAge` allows one, else `produce()`'s (kept when maxAge > 0)."""
    key = cache.cache_key(caller.user_id, operation.value, request, form) if request.maxAge > 0 else None
    if key is not None:
        # The request scope (its deadline sets the S3 client's timeouts) goes with the lookup.
        looking = _LOOKUPS.submit(contextvars.copy_context().run, cache.lookup, key, request.maxAge)
        _count(caller)  # here, in the request's own context: a miss's reservation then skips the count
        hit = looking.result()
        if hit is not None:
            response = file_response(app, hit.answer, operation, credits_cost=0, large=large)
            response.headers[CACHE_HEADER] = "HIT"
            response.headers[CACHED_AT_HEADER] = hit.cached_at
            return response
    answer = produce()
    if key is not None:
        cache.store(key, answer)
    response = file_response(app, answer, operation, large=large)
    response.headers[CACHE_HEADER] = "MISS"
    return response


def json_answer(data: dict[str, Any]) -> FileAnswer:
    """A JSON endpoint's `data` as an answer the cache keeps."""
    return FileAnswer("json", data=data)
