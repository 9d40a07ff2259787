"""A storage state as the profiles keep it: only what the egress policy lets the browser reach, in compact
JSON, summed up for the profile's metadata without any of its values (docs/profiles.md#what-is-kept)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from webcapture import egress
from webcapture.models.profiles import StorageState


@dataclass(frozen=True)
class KeptState:
    body: bytes  # the state as stored, compact JSON
    origins: tuple[str, ...]  # the sites it has something for: cookie domains and localStorage origins
    dropped: int  # cookies and origins left out because the egress policy refuses their host


def reachable_only(state: StorageState) -> KeptState:
    """The state without the cookies and localStorage of hosts the browser may not reach (an internal
    name, a private address): a profile never carries a session into a place a capture cannot go."""
    verdicts: dict[str, bool] = {}

    def allowed(host: str) -> bool:
        if host not in verdicts:
            verdicts[host] = egress.host_allowed(host)
        return verdicts[host]

    cookies = [cookie for cookie in state.cookies if allowed(cookie.domain)]
    origins = [entry for entry in state.origins if allowed(urlsplit(entry.origin).hostname or "")]
    kept = StorageState(cookies=cookies, origins=origins)
    sites = {cookie.domain.removeprefix(".") for cookie in cookies} | {entry.origin for entry in origins}
    return KeptState(body=encode(kept), origins=tuple(sorted(sites)),
                     dropped=len(state.cookies) - len(cookies) + len(state.origins) - len(origins))


def encode(state: StorageState) -> bytes:
    return json.dumps(state.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False).encode()


def decode(body: bytes) -> dict[str, Any]:
    """A kept state as Playwright's new_context(storage_state=...) takes it."""
    state: dict[str, Any] = json.loads(body)
    return state
