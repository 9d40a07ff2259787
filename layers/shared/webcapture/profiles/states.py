"""A storage state as the profiles keep it: only what the egress policy lets the browser reach, in compact
JSON, summed up for the profile's metadata without any of its values (docs/profiles.md#what-is-kept)."""

from __future__ import annotations

import contextvars
import json
from concurrent.futures import ThreadPoolExecutor
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
    hosts = sorted({cookie.domain for cookie in state.cookies}
                   | {urlsplit(entry.origin).hostname or "" for entry in state.origins})
    verdicts = _verdicts(hosts)
    cookies = [cookie for cookie in state.cookies if verdicts[cookie.domain]]
    origins = [entry for entry in state.origins if verdicts[urlsplit(entry.origin).hostname or ""]]
    kept = StorageState(cookies=cookies, origins=origins)
    sites = {cookie.domain.removeprefix(".") for cookie in cookies} | {entry.origin for entry in origins}
    return KeptState(body=encode(kept), origins=tuple(sorted(sites)),
                     dropped=len(state.cookies) - len(cookies) + len(state.origins) - len(origins))


def _verdicts(hosts: list[str]) -> dict[str, bool]:
    """Each host judged once, the lookups side by side (a state from a day of browsing names dozens of
    sites), each in the request's context so that it keeps to the request's deadline."""
    if len(hosts) <= 1:
        return {host: egress.host_allowed(host) for host in hosts}
    with ThreadPoolExecutor(max_workers=min(16, len(hosts)), thread_name_prefix="profile-hosts") as pool:
        judged = [pool.submit(contextvars.copy_context().run, egress.host_allowed, host) for host in hosts]
        return {host: future.result() for host, future in zip(hosts, judged, strict=True)}


def encode(state: StorageState) -> bytes:
    return json.dumps(state.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False).encode()


def decode(body: bytes) -> dict[str, Any]:
    """A kept state as Playwright's new_context(storage_state=...) takes it."""
    state: dict[str, Any] = json.loads(body)
    return state
