"""`Idempotency-Key` on `POST /v1/batch` (docs/jobs.md#jobs): the same key and body within 24 h answer the
same job without a new charge; the same key with another body is 409 IDEMPOTENCY_CONFLICT.

The key's record is written in the transaction that creates the job and reserves its credits, so two
submits racing with one key make one job: the loser reads the winner's record."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from webcapture.errors import IdempotencyConflict, RequestValidationError

HEADER = "Idempotency-Key"
MAX_LENGTH = 255


def checked_key(value: str | None) -> str | None:
    """The header's value, or None when absent; 422 when empty or longer than 255 characters."""
    if value is None:
        return None
    if not 1 <= len(value) <= MAX_LENGTH:
        code, bound = ("too_small", 1) if not value else ("too_big", MAX_LENGTH)
        key = "minimum" if code == "too_small" else "maximum"
        raise RequestValidationError(
            [
                {
                    "code": code,
                    key: bound,
                    "inclusive": True,
                    "type": "string",
                    "path": [HEADER],
                    "message": f"String must contain {'at least' if code == 'too_small' else 'at most'} "
                    f"{bound} character(s)",
                }
            ]
        )
    return value


def record_key(user_id: str, key: str) -> str:
    """The record's partition key: per user (one user's key never answers another's job)."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"idempotency#{user_id}#{digest}"


def body_hash(payload: Any) -> str:
    """The body's fingerprint: its JSON with keys sorted, so key order and spacing do not matter."""
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def same_job(record: dict[str, Any], payload_hash: str) -> str:
    """The job an earlier submit with this key made; 409 when that submit's body was another."""
    if record.get("bodyHash") != payload_hash:
        raise IdempotencyConflict()
    return str(record["jobId"])
