"""`maxAge` (docs/cache-and-signed-links.md#cache-and-signed-links): how old a cached answer to the same
request may be, in seconds."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

# 30 days: the longest an entry is kept (the bucket's `cache/` lifecycle rule follows it).
MAX_AGE_LIMIT_S = 2_592_000

MaxAge = Annotated[int, Field(ge=0, le=MAX_AGE_LIMIT_S, description=(
    "Answer from the cache when the same request (every field but maxAge) was answered at most this many "
    "seconds ago: no credits, no browser. 0 (default): always fresh, nothing cached."))]
