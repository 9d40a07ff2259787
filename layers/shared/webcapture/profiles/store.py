"""Profiles' metadata in the profiles table (docs/profiles.md#storage): one item per profile under its
user, and one counter item per user that holds the 100-profile limit.

Items: `{userId, profileId, name, version, origins, size, createdAt, updatedAt, stateKey?}`. The state itself
is never here: `stateKey` names its S3 object (webcapture.profiles.state_objects), one object per version,
so a save that loses the race on `version` never touched the state the profile points at.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_client, dynamodb_table
from webcapture.envelopes import utc_timestamp
from webcapture.errors import LimitReached, NotFound, ServiceUnavailable
from webcapture.settings import get_settings

MAX_PROFILES = 100
ID_PREFIX = "prf_"
# The counter's sort key: outside the profile ids' prefix, so a listing never sees it.
_COUNTER = "#count"
FIRST_VERSION = 1


@dataclass(frozen=True)
class Profile:
    user_id: str
    profile_id: str
    name: str
    version: int
    origins: tuple[str, ...]
    size: int
    created_at: str
    updated_at: str
    state_key: str | None  # None: the profile has no state yet (a fresh context)

    def public(self) -> dict[str, Any]:
        """What an answer shows: never the state, never where it is kept."""
        return {"profileId": self.profile_id, "name": self.name, "version": self.version,
                "origins": list(self.origins), "size": self.size, "createdAt": self.created_at,
                "updatedAt": self.updated_at}


def _table_name() -> str:
    return get_settings().profiles_table


def _table() -> Any:
    return dynamodb_table(get_settings().profiles_table)


def _profile(item: dict[str, Any]) -> Profile:
    state_key = item.get("stateKey")
    return Profile(user_id=str(item["userId"]), profile_id=str(item["profileId"]), name=str(item["name"]),
                   version=int(item["version"]), origins=tuple(str(o) for o in item.get("origins") or ()),
                   size=int(item.get("size") or 0), created_at=str(item["createdAt"]),
                   updated_at=str(item["updatedAt"]), state_key=str(state_key) if state_key else None)


def _not_found(profile_id: str) -> NotFound:
    # The same answer for another user's profile and for none at all: an id tells nothing about others.
    return NotFound(f"No profile {profile_id[:100]} (it may have been deleted)")


def busy(profile_id: str) -> ServiceUnavailable:
    return ServiceUnavailable(f"The profile {profile_id[:100]} is being saved by other requests; retry")


def _failed_condition(error: ClientError) -> bool:
    return error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def create(user_id: str, name: str) -> Profile:
    """A new profile, version 1 without a state; 409 LIMIT_REACHED when the user has 100 already. The
    counter and the item are written in one transaction, so two creates at once cannot both pass 100."""
    now = utc_timestamp()
    profile_id = ID_PREFIX + secrets.token_urlsafe(12)
    item = {"userId": user_id, "profileId": profile_id, "name": name, "version": FIRST_VERSION,
            "origins": [], "size": 0, "createdAt": now, "updatedAt": now}
    table = _table_name()
    try:
        dynamodb_client().transact_write_items(TransactItems=[
            {"Update": {
                "TableName": table, "Key": {"userId": {"S": user_id}, "profileId": {"S": _COUNTER}},
                "UpdateExpression": "ADD profiles :one",
                "ConditionExpression": "attribute_not_exists(profiles) OR profiles < :limit",
                "ExpressionAttributeValues": {":one": {"N": "1"}, ":limit": {"N": str(MAX_PROFILES)}},
            }},
            {"Put": {
                "TableName": table, "Item": _typed(item),
                "ConditionExpression": "attribute_not_exists(profileId)",
            }},
        ])
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "TransactionCanceledException":
            raise LimitReached(f"A user has at most {MAX_PROFILES} profiles; delete one first") from None
        raise
    return _profile(item)


def _typed(item: dict[str, Any]) -> dict[str, Any]:
    """A new profile's item in DynamoDB's typed JSON (the low-level client's transactions need it)."""
    typed: dict[str, Any] = {}
    for name, value in item.items():
        if isinstance(value, bool) or not isinstance(value, int | str | list):
            raise TypeError(f"unexpected profile attribute {name}")
        if isinstance(value, int):
            typed[name] = {"N": str(value)}
        elif isinstance(value, str):
            typed[name] = {"S": value}
        else:
            typed[name] = {"L": [{"S": str(entry)} for entry in value]}
    return typed


def find(user_id: str, profile_id: str) -> Profile | None:
    if not profile_id.startswith(ID_PREFIX):
        return None
    key = {"userId": user_id, "profileId": profile_id}
    item = _table().get_item(Key=key, ConsistentRead=True).get("Item")
    return _profile(item) if item else None


def owned(user_id: str, profile_id: str) -> Profile:
    """The caller's profile, or 404 NOT_FOUND (another user's and an unknown id alike)."""
    profile = find(user_id, profile_id)
    if profile is None:
        raise _not_found(profile_id)
    return profile


def list_profiles(user_id: str) -> list[Profile]:
    """The user's profiles, oldest id first (at most 100, so one or two pages of a query)."""
    found: list[Profile] = []
    query: dict[str, Any] = {
        "KeyConditionExpression": "userId = :user AND begins_with(profileId, :prefix)",
        "ExpressionAttributeValues": {":user": user_id, ":prefix": ID_PREFIX},
    }
    while True:
        page = _table().query(**query)
        found += [_profile(item) for item in page.get("Items", [])]
        if "LastEvaluatedKey" not in page:
            return sorted(found, key=lambda p: (p.created_at, p.profile_id))
        query["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def rename(user_id: str, profile_id: str, name: str) -> Profile:
    if not profile_id.startswith(ID_PREFIX):
        raise _not_found(profile_id)
    try:
        answer = _table().update_item(
            Key={"userId": user_id, "profileId": profile_id},
            UpdateExpression="SET #name = :name, updatedAt = :now",
            ConditionExpression="attribute_exists(profileId)",
            ExpressionAttributeNames={"#name": "name"},
            ExpressionAttributeValues={":name": name, ":now": utc_timestamp()},
            ReturnValues="ALL_NEW",
        )
    except ClientError as error:
        if _failed_condition(error):
            raise _not_found(profile_id) from None
        raise
    return _profile(answer["Attributes"])


def delete(user_id: str, profile_id: str) -> Profile:
    """Remove the profile and give its place back under the limit; the caller deletes its state object."""
    profile = owned(user_id, profile_id)
    table = _table_name()
    try:
        dynamodb_client().transact_write_items(TransactItems=[
            {"Delete": {
                "TableName": table, "Key": {"userId": {"S": user_id}, "profileId": {"S": profile_id}},
                "ConditionExpression": "attribute_exists(profileId)",
            }},
            {"Update": {
                "TableName": table, "Key": {"userId": {"S": user_id}, "profileId": {"S": _COUNTER}},
                "UpdateExpression": "ADD profiles :minus",
                "ExpressionAttributeValues": {":minus": {"N": "-1"}},
            }},
        ])
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") == "TransactionCanceledException":
            raise _not_found(profile_id) from None  # deleted by another request meanwhile
        raise
    return profile


@dataclass(frozen=True)
class NewState:
    state_key: str
    origins: tuple[str, ...]
    size: int


def replace_state(user_id: str, profile_id: str, started_from: int, state: NewState) -> Profile | None:
    """Point the profile at a new state, one version up, only if it is still at `started_from` (a save
    conditional on the version it began with). Returns the profile as it was (its old state object is the
    caller's to remove); None when it was not at that version (saved by another request, or deleted): the
    caller's new object is then its own to remove."""
    try:
        answer = _table().update_item(
            Key={"userId": user_id, "profileId": profile_id},
            # `size` is one of DynamoDB's reserved words.
            UpdateExpression=("SET version = version + :one, stateKey = :key, origins = :origins, "
                              "#size = :size, updatedAt = :now"),
            ConditionExpression="attribute_exists(profileId) AND version = :started",
            ExpressionAttributeNames={"#size": "size"},
            ExpressionAttributeValues={":one": 1, ":key": state.state_key, ":origins": list(state.origins),
                                       ":size": state.size, ":now": utc_timestamp(),
                                       ":started": started_from},
            ReturnValues="ALL_OLD",
        )
    except ClientError as error:
        if _failed_condition(error):
            return None
        raise
    return _profile(answer["Attributes"])
