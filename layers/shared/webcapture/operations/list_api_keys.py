"""GET /v1/api-keys/list (docs/api.md#api-keys-list)."""

from __future__ import annotations

from typing import Any

from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.metering import metered


def list_api_keys(caller: Caller) -> dict[str, Any]:
    with metered(caller, cost_of(Operation.API_KEYS_LIST)):
        keys = [record.public() for record in api_keys.list_for_user(caller.user_id)]
    return {"apiKeys": keys, "total": len(keys)}
