"""GET /v1/signing/secret and POST /v1/signing/secret/rotate
(docs/cache-and-signed-links.md#cache-and-signed-links): the caller's signing secret.

The key that asks is the key its signed links are charged to (webcapture.signing.secrets_store)."""

from __future__ import annotations

from typing import Any

from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.metering import metered
from webcapture.signing import secrets_store


def signing_secret(caller: Caller) -> dict[str, Any]:
    with metered(caller, cost_of(Operation.SIGNING_SECRET)):
        return secrets_store.get_or_create(caller.user_id, caller.key_hash).public()


def rotate_signing_secret(caller: Caller) -> dict[str, Any]:
    with metered(caller, cost_of(Operation.SIGNING_SECRET)):
        return secrets_store.rotate(caller.user_id, caller.key_hash).public()
