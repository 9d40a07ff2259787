"""The answer cache (docs/cache-and-signed-links.md#cache-and-signed-links): a repeat of a request answered
from S3, without credits or a browser.

- `keys`: which requests share an entry (the canonical request, the user, the operation, the answer form);
- `entries`: an answer as one S3 object, and back;
- `storage`: lookup, store, and dropping the entries of a deleted file; never fails a request.

The HTTP edge (`webcapture.cached_responses`) and the asynchronous workers call the same three functions.
"""

from webcapture.cache.keys import CacheKey, cache_key, canonical_request, holds_secrets
from webcapture.cache.storage import CacheHit, drop_file_entries, lookup, store

__all__ = ["CacheHit", "CacheKey", "cache_key", "canonical_request", "drop_file_entries", "holds_secrets",
           "lookup", "store"]
