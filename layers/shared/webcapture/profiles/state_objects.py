"""Profiles' states in S3 (docs/profiles.md#storage): `profiles/<userId>/<profileId>/<version>-<nonce>`,
SSE-KMS under the stack's key. One object per saved version: a save writes its own object first and only
then moves the profile to it, so a reader never sees half of one save and half of another.
"""

from __future__ import annotations

import secrets
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import s3_client
from webcapture.settings import get_settings
from webcapture.stored_files import key_segment

PROFILES_FOLDER = "profiles"


def state_key(user_id: str, profile_id: str, version: int) -> str:
    # The nonce keeps two saves racing for the same version from writing the same object.
    return (f"{PROFILES_FOLDER}/{key_segment(user_id)}/{key_segment(profile_id)}/"
            f"{version}-{secrets.token_hex(8)}")


def put_state(key: str, body: bytes) -> None:
    settings = get_settings()
    encryption: dict[str, Any] = {"ServerSideEncryption": "aws:kms"}
    if settings.profiles_kms_key:
        encryption["SSEKMSKeyId"] = settings.profiles_kms_key
    s3_client().put_object(Bucket=settings.files_bucket, Key=key, Body=body,
                           ContentType="application/json", **encryption)


def get_state(key: str) -> bytes | None:
    """The object's bytes; None when it is gone (a save replaced it a moment ago)."""
    try:
        answer = s3_client().get_object(Bucket=get_settings().files_bucket, Key=key)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise
    body: bytes = answer["Body"].read()
    return body


def delete_state(key: str) -> None:
    s3_client().delete_object(Bucket=get_settings().files_bucket, Key=key)
