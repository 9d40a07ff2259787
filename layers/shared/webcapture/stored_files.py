"""Stored files, screenshots and PDFs (CONTRACT 10, 12, 15): the S3 object and its record in the Files table.

The object is written before the record, and removed again if the record can't be written, so a
failure never leaves a record pointing at nothing.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from webcapture.aws import dynamodb_table, s3_client
from webcapture.envelopes import utc_timestamp
from webcapture.images import CONTENT_TYPES, FILE_EXTENSIONS, ImageFormat
from webcapture.settings import get_settings

RECORD_FIELDS = ("id", "url", "filename", "storage_key", "public_url", "metadata", "created_at", "expires_at")


@dataclass(frozen=True)
class StoredFile:
    file_id: str
    storage_key: str
    public_url: str
    record: dict[str, str]


# Top-level folders of the bucket, one per kind of file; the lifecycle rule and the IAM grants follow them.
SCREENSHOTS = "screenshots"
PDFS = "pdfs"


def storage_key_for(user_id: str, file_id: str, image_format: ImageFormat) -> str:
    return f"{SCREENSHOTS}/{user_id}/{file_id}.{FILE_EXTENSIONS[image_format]}"


def public_url_for(storage_key: str) -> str:
    return f"{get_settings().public_base_url}/{storage_key}"


def store_image(
    *, user_id: str, page_url: str, image: bytes, image_format: ImageFormat, metadata: dict[str, Any]
) -> StoredFile:
    return store_file(user_id=user_id, page_url=page_url, body=image, folder=SCREENSHOTS,
                      extension=FILE_EXTENSIONS[image_format], content_type=CONTENT_TYPES[image_format],
                      metadata=metadata)


def store_file(
    *, user_id: str, page_url: str, body: bytes, folder: str, extension: str, content_type: str,
    metadata: dict[str, Any],
) -> StoredFile:
    """Store `body` at `<folder>/<userId>/<fileId>.<extension>` with its record, owned by `user_id`."""
    settings = get_settings()
    file_id = str(uuid.uuid4())
    key = f"{folder}/{user_id}/{file_id}.{extension}"
    now = datetime.now(UTC)
    expires = now + timedelta(days=settings.file_retention_days)
    public_url = public_url_for(key)
    record = {
        "id": file_id,
        "url": page_url,
        "filename": key.rsplit("/", 1)[-1],
        "storage_key": key,
        "public_url": public_url,
        "metadata": json.dumps(metadata, separators=(",", ":")),
        "created_at": utc_timestamp(now),
        "expires_at": utc_timestamp(expires),
    }
    s3 = s3_client()
    s3.put_object(
        Bucket=settings.files_bucket,
        Key=key,
        Body=body,
        ContentType=content_type,
        CacheControl="public, max-age=31536000, immutable",
    )
    try:
        dynamodb_table(settings.files_table).put_item(
            Item={**record, "userId": user_id, "ttl": int(expires.timestamp())},
            ConditionExpression="attribute_not_exists(id)",
        )
    except Exception:
        s3.delete_object(Bucket=settings.files_bucket, Key=key)
        raise
    return StoredFile(file_id=file_id, storage_key=key, public_url=public_url, record=record)


@dataclass(frozen=True)
class DeletionResult:
    file_id: str
    was_found: bool
    deleted_from_database: bool = False
    deleted_from_storage: bool = False
    deleted_file: dict[str, str] | None = None
    error: str | None = None

    def as_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "fileId": self.file_id,
            "wasFound": self.was_found,
            "deletedFromDatabase": self.deleted_from_database,
            "deletedFromStorage": self.deleted_from_storage,
        }
        if self.deleted_file is not None:
            data["deletedFile"] = self.deleted_file
        if self.error is not None:
            data["error"] = self.error
        return data


def delete_file(*, user_id: str, file_id: str, delete_from_storage: bool) -> DeletionResult:
    """Delete the caller's own file; someone else's looks exactly like an unknown one."""
    settings = get_settings()
    table = dynamodb_table(settings.files_table)
    item = table.get_item(Key={"id": file_id}, ConsistentRead=True).get("Item")
    if not item or item.get("userId") != user_id:
        return DeletionResult(file_id=file_id, was_found=False, error="File not found")
    record = {name: str(item.get(name, "")) for name in RECORD_FIELDS}
    try:
        # The owner check again, atomically, in case the id was reused between the read and the delete.
        table.delete_item(
            Key={"id": file_id},
            ConditionExpression="userId = :owner",
            ExpressionAttributeValues={":owner": user_id},
        )
    except ClientError as error:
        if error.response["Error"]["Code"] == "ConditionalCheckFailedException":
            return DeletionResult(file_id=file_id, was_found=False, error="File not found")
        raise
    if not delete_from_storage:
        return DeletionResult(file_id, True, True, False, record)
    try:
        s3_client().delete_object(Bucket=settings.files_bucket, Key=record["storage_key"])
    except ClientError as error:
        return DeletionResult(file_id, True, True, False, record,
                              error=f"Storage deletion failed: {error.response['Error']['Code']}")
    return DeletionResult(file_id, True, True, True, record)
