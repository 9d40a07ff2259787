"""A request's profile (docs/profiles.md#using-a-profile): opened before any work, its state handed to the
browser's fresh context, and with `save: true` the context's state written back after the capture.

Opening comes first, before the target check, the credits and the browser: a profile the caller cannot use
is a 404 that costs nothing. The browser reads the opened profile from `active()` on the request's own
thread and leaves what it captured on it (`keep`); `finish` then saves it, conditional on the version the
capture started from. Losing that race is no failure: the capture is answered, with a warning.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError
from pydantic import ValidationError

from webcapture.auth.caller import Caller
from webcapture.models.profiles import MAX_STATE_BYTES, ProfileRef, StorageState
from webcapture.profiles import state_objects, states, store
from webcapture.profiles.store import NewState, Profile

log = logging.getLogger(__name__)

_active: contextvars.ContextVar[ProfileUse | None] = contextvars.ContextVar("webcapture_profile",
                                                                           default=None)


@dataclass
class ProfileUse:
    profile: Profile
    save: bool
    # What the fresh context starts from (Playwright's storage_state); None: the profile has none yet.
    state: dict[str, Any] | None
    # The context's state after a successful capture, when `save` asked for it (set by the browser worker).
    captured: dict[str, Any] | None = field(default=None, repr=False)

    def __repr__(self) -> str:  # never the state, should anything print this
        return f"ProfileUse({self.profile.profile_id}, version={self.profile.version}, save={self.save})"

    def keep(self, state: dict[str, Any]) -> None:
        if self.save:
            self.captured = state


def open_profile(caller: Caller, ref: ProfileRef | None) -> ProfileUse | None:
    """The caller's profile and its state, or 404 NOT_FOUND; None when the request names none."""
    if ref is None:
        return None
    profile = store.owned(caller.user_id, ref.id)
    if profile.state_key is None:
        return ProfileUse(profile, ref.save, None)
    body = state_objects.get_state(profile.state_key)
    if body is None:
        # A save replaced the state between the two reads: the profile names the new one now.
        profile = store.owned(caller.user_id, ref.id)
        body = state_objects.get_state(profile.state_key) if profile.state_key else None
    return ProfileUse(profile, ref.save, states.decode(body) if body is not None else None)


@contextmanager
def using(use: ProfileUse | None) -> Iterator[None]:
    token = _active.set(use)
    try:
        yield
    finally:
        _active.reset(token)


def active() -> ProfileUse | None:
    return _active.get()


def not_saved(profile: Profile) -> str:
    return (f"The profile {profile.profile_id} was not saved: it changed since this capture started from "
            f"version {profile.version} (another request saved it, or it was deleted)")


def finish(use: ProfileUse | None) -> str | None:
    """Save what the capture left when `save` asked for it; the warning for the answer when it was not."""
    if use is None or not use.save or use.captured is None:
        return None
    profile = use.profile
    try:
        kept = states.reachable_only(StorageState.model_validate(use.captured))
    except ValidationError:
        return f"The profile {profile.profile_id} was not saved: the browser's state could not be read"
    if len(kept.body) > MAX_STATE_BYTES:
        return f"The profile {profile.profile_id} was not saved: its state would exceed 1 MB"
    try:
        return _save(profile, kept)
    except (BotoCoreError, ClientError) as error:
        log.warning("saving a profile failed: %s", type(error).__name__)
        return f"The profile {profile.profile_id} was not saved: its storage could not be reached; retry"


def _save(profile: Profile, kept: states.KeptState) -> str | None:
    key = state_objects.state_key(profile.user_id, profile.profile_id, profile.version + 1)
    state_objects.put_state(key, kept.body)
    before = store.replace_state(profile.user_id, profile.profile_id, profile.version,
                                 NewState(key, kept.origins, len(kept.body)))
    if before is None:
        with suppress(BotoCoreError, ClientError):
            state_objects.delete_state(key)
        return not_saved(profile)
    if before.state_key:
        with suppress(BotoCoreError, ClientError):  # unreferenced now; a later delete would miss it only
            state_objects.delete_state(before.state_key)
    return None


def import_state(profile: Profile, state: StorageState) -> tuple[Profile, int]:
    """PUT /v1/profiles/{id}/state: the state replaces the profile's, version up by one. Returns the
    profile after, and how many cookies and origins the egress policy dropped."""
    kept = states.reachable_only(state)
    for _ in range(3):  # a capture saving at the same moment moved the version: read it again
        key = state_objects.state_key(profile.user_id, profile.profile_id, profile.version + 1)
        state_objects.put_state(key, kept.body)
        before = store.replace_state(profile.user_id, profile.profile_id, profile.version,
                                     NewState(key, kept.origins, len(kept.body)))
        if before is not None:
            if before.state_key:
                with suppress(BotoCoreError, ClientError):
                    state_objects.delete_state(before.state_key)
            return store.owned(profile.user_id, profile.profile_id), kept.dropped
        with suppress(BotoCoreError, ClientError):
            state_objects.delete_state(key)
        profile = store.owned(profile.user_id, profile.profile_id)  # 404 once deleted
    raise store.busy(profile.profile_id)
