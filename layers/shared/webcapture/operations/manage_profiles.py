"""The profile routes (docs/profiles.md#routes): all free, no concurrency slot, no browser. Answers show a
profile's metadata, never its state: there is no way to read a state back."""

from __future__ import annotations

from contextlib import suppress
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from webcapture.answer_warnings import with_warnings
from webcapture.auth.caller import Caller
from webcapture.models.profiles import ProfileCreate, ProfileRename, StorageState
from webcapture.profiles import sessions, state_objects, store


def create_profile(caller: Caller, request: ProfileCreate) -> dict[str, Any]:
    return store.create(caller.user_id, request.name).public()


def list_profiles(caller: Caller) -> dict[str, Any]:
    profiles = store.list_profiles(caller.user_id)
    return {"profiles": [profile.public() for profile in profiles], "total": len(profiles)}


def get_profile(caller: Caller, profile_id: str) -> dict[str, Any]:
    return store.owned(caller.user_id, profile_id).public()


def rename_profile(caller: Caller, profile_id: str, request: ProfileRename) -> dict[str, Any]:
    return store.rename(caller.user_id, profile_id, request.name).public()


def delete_profile(caller: Caller, profile_id: str) -> dict[str, Any]:
    profile = store.delete(caller.user_id, profile_id)
    if profile.state_key is not None:
        # Gone with the profile. Should S3 fail here, the object is unreferenced and unreadable by any route.
        with suppress(BotoCoreError, ClientError):
            state_objects.delete_state(profile.state_key)
    return {"profileId": profile.profile_id, "deleted": True}


def import_state(caller: Caller, profile_id: str, state: StorageState) -> dict[str, Any]:
    """A login made elsewhere (Playwright's storage state) becomes the profile's state."""
    profile, dropped = sessions.import_state(store.owned(caller.user_id, profile_id), state)
    if not dropped:
        return profile.public()
    return with_warnings(profile.public(), [
        f"{dropped} cookie(s) or origin(s) were dropped: their hosts are ones the service may not reach"])
