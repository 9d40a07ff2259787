"""Which requests share a cache entry: the same user, operation, answer form and canonical request.

The canonical request is the validated model with every default filled in, `maxAge` left out, written as
JSON with sorted keys: two requests that differ in any option (spelled out or by default) never share an
entry, and a request that spells out a default shares the entry of one that leaves it out.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from pydantic import BaseModel

from webcapture.stored_files import key_segment

CACHE_FOLDER = "cache"
_NOT_PART_OF_THE_KEY = frozenset({"maxAge"})


def canonical_request(request: BaseModel) -> str:
    # ensure_ascii: a lone surrogate in a string (JSON allows it) hashes like any other character.
    fields = request.model_dump(mode="json", exclude=set(_NOT_PART_OF_THE_KEY))
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


@dataclass(frozen=True)
class CacheKey:
    user_id: str
    operation: str
    digest: str  # SHA-256 of user, operation, form and canonical request

    @property
    def object_key(self) -> str:
        """Where the entry lives: one GET answers a lookup."""
        return f"{user_folder(self.user_id)}/entries/{self.operation}/{self.digest}"


def holds_secrets(request: BaseModel) -> bool:
    """A request whose answer depends on what it types (a password in `actions`): never cached, so the
    typed text never goes into a key, not even hashed (docs/profiles.md#the-cache)."""
    actions = getattr(request, "actions", None) or ()
    return any(getattr(action, "text", None) is not None for action in actions)


def user_folder(user_id: str) -> str:
    return f"{CACHE_FOLDER}/{key_segment(user_id)}"


def file_marker_key(user_id: str, file_id: str) -> str:
    """The object naming the entry that answers with this stored file (for /v1/files/delete)."""
    return f"{user_folder(user_id)}/by-file/{key_segment(file_id)}"


def cache_key(user_id: str, operation: str, request: BaseModel, form: str = "",
              profile_version: int | None = None) -> CacheKey:
    """`form` tells answers of one request apart that differ by something outside the body: a file
    endpoint answers bytes or JSON depending on the Accept header. `profile_version`: the version of the
    request's profile (its id is in the request), so an answer made with one state of a session never
    answers a request made with another (docs/profiles.md#the-cache)."""
    parts: list[str | int] = [user_id, operation, form, canonical_request(request)]
    if profile_version is not None:
        parts.append(profile_version)
    material = json.dumps(parts, ensure_ascii=True)
    digest = hashlib.sha256(material.encode("ascii")).hexdigest()
    return CacheKey(user_id=user_id, operation=operation, digest=digest)
