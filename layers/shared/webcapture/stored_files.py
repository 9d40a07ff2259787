"""Stored files, screenshots and PDFs (docs/api.md#files-delete, docs/api.md#stored-files,
docs/api.md#more-outputs): the S3 object and its record in the Files table.

The object is written before the record, and removed again if the record can't be written, so a
failure never leaves a record pointing at nothing.
"""

from __future__ import annotations

import json
import string
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

from botocore.exceptions import BotoCoreError, ClientError

from webcapture.aws import cloudfront_client, dynamodb_table, s3_client
from webcapture.envelopes import utc_timestamp
from webcapture.images import CONTENT_TYPES, FILE_EXTENSIONS, ImageFormat
from webcapture.observability import logger, metrics
from webcapture.settings import get_settings

# Cached a day at most (CloudFront and browsers): a deleted file is also invalidated at CloudFront, but a
# browser's copy can only age out.
CACHE_CONTROL = "public, max-age=86400"
RECORD_FIELDS = ("id", "url", "filename", "storage_key", "public_url", "metadata", "created_at", "expires_at")


@dataclass(frozen=True)
class StoredFile:
    """A file stored for the caller: its id, its key in the bucket, and where it is served."""

    file_id: str
    storage_key: str
    public_url: str


# Top-level folders of the bucket, one per kind of file; the lifecycle rule and the IAM grants follow them.
SCREENSHOTS = "screenshots"
PDFS = "pdfs"

# A user id is the caller's own string (a JWT `sub` can hold "/", "?", "#", ".."): in a key it is one path
# segment of S3's safe characters only, each other byte written as "!" and two hex digits (S3 lists "!" as
# safe; "%" among the characters to avoid). Ids of letters, digits, "-", "_" and "." are kept as they are.
_KEY_SAFE = frozenset(string.ascii_letters + string.digits + "-_.")


def key_segment(user_id: str) -> str:
    """`user_id` as one safe path segment; different ids always give different segments."""
    segment = "".join(
        char if char in _KEY_SAFE else "".join(f"!{b:02X}" for b in char.encode("utf-8", "surrogatepass"))
        for char in user_id
    )
    # "." and ".." would be read as path steps by anything that normalises the URL.
    return segment.replace(".", "!2E") if segment.strip(".") == "" else segment


def file_key(folder: str, user_id: str, file_id: str, extension: str) -> str:
    return f"{folder}/{key_segment(user_id)}/{file_id}.{extension}"


def public_url_for(storage_key: str) -> str:
    return f"{get_settings().public_base_url}/{quote(storage_key, safe='/!')}"


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
    key = file_key(folder, user_id, file_id, extension)
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
        CacheControl=CACHE_CONTROL,
    )
    try:
        dynamodb_table(settings.files_table).put_item(
            Item={**record, "userId": user_id, "ttl": int(expires.timestamp())},
            ConditionExpression="attribute_not_exists(id)",
        )
    except Exception:
        s3.delete_object(Bucket=settings.files_bucket, Key=key)
        raise
    return StoredFile(file_id=file_id, storage_key=key, public_url=public_url)


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
    _invalidate_cached_copy(record["storage_key"])
    return DeletionResult(file_id, True, True, True, record)


def _invalidate_cached_copy(storage_key: str) -> None:
    """Ask CloudFront to drop its copy of a deleted object. A failure is logged and counted, not the
    caller's problem: the object is gone and the cached copy ages out within CACHE_CONTROL's day."""
    distribution_id = get_settings().files_distribution_id
    if distribution_id is None:  # the local API serves files straight from the bucket
        return
    path = "/" + quote(storage_key, safe="/!")
    try:
        cloudfront_client().create_invalidation(
            DistributionId=distribution_id,
            InvalidationBatch={"Paths": {"Quantity": 1, "Items": [path]},
                               "CallerReference": str(uuid.uuid4())},
        )
    except (ClientError, BotoCoreError) as error:
        logger.warning("CloudFront invalidation failed", extra={"path": path, "error": str(error)})
        metrics.add_metric(name="CacheInvalidationFailures", unit="Count", value=1)
