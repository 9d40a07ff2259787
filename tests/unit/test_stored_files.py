"""Stored screenshots: object + record together, deletion by the owner only, nothing half-written."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from webcapture import stored_files
from webcapture.settings import get_settings

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def objects() -> list[str]:
    listing = boto3.client("s3").list_objects_v2(Bucket=get_settings().files_bucket)
    return [o["Key"] for o in listing.get("Contents", [])]


def store(user: str = "user-1") -> stored_files.StoredFile:
    return stored_files.store_image(user_id=user, page_url="https://example.com/", image=PNG, image_format="png",
                                    metadata={"width": 1, "height": 1})


def test_store_writes_object_and_record(aws_resources: None) -> None:
    stored = store()
    assert stored.storage_key == f"screenshots/user-1/{stored.file_id}.png"
    assert stored.public_url == f"https://files.example.test/{stored.storage_key}"
    body = boto3.client("s3").get_object(Bucket=get_settings().files_bucket, Key=stored.storage_key)
    assert body["Body"].read() == PNG and body["ContentType"] == "image/png"
    item = boto3.resource("dynamodb").Table(get_settings().files_table).get_item(Key={"id": stored.file_id})["Item"]
    assert item["userId"] == "user-1"
    assert int(item["ttl"]) > 0
    assert json.loads(str(item["metadata"])) == {"width": 1, "height": 1}
    assert item["expires_at"] > item["created_at"]


def test_owner_deletes_record_and_object(aws_resources: None) -> None:
    stored = store()
    result = stored_files.delete_file(user_id="user-1", file_id=stored.file_id, delete_from_storage=True)
    data = result.as_data()
    assert data["wasFound"] and data["deletedFromDatabase"] and data["deletedFromStorage"]
    assert "error" not in data
    assert data["deletedFile"]["id"] == stored.file_id
    assert set(data["deletedFile"]) == set(stored_files.RECORD_FIELDS)
    assert all(isinstance(v, str) for v in data["deletedFile"].values())
    assert objects() == []


def test_record_only_deletion_keeps_the_object(aws_resources: None) -> None:
    stored = store()
    data = stored_files.delete_file(user_id="user-1", file_id=stored.file_id, delete_from_storage=False).as_data()
    assert data["deletedFromDatabase"] and not data["deletedFromStorage"]
    assert objects() == [stored.storage_key]


@pytest.mark.parametrize("who", ["someone-else", "user-1"])
def test_foreign_or_unknown_file_looks_not_found(aws_resources: None, who: str) -> None:
    stored = store("owner")
    file_id = stored.file_id if who == "someone-else" else "no-such-file"
    data = stored_files.delete_file(user_id=who, file_id=file_id, delete_from_storage=True).as_data()
    assert data == {"fileId": file_id, "wasFound": False, "deletedFromDatabase": False,
                    "deletedFromStorage": False, "error": "File not found"}
    assert objects() == [stored.storage_key]


def test_failed_record_write_removes_the_object(aws_resources: None, settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("FILES_TABLE", "no-such-table")
    get_settings.cache_clear()
    with pytest.raises(ClientError):
        store()
    assert objects() == []


def test_pdfs_are_stored_in_their_folder_and_deleted_like_images(aws_resources: None) -> None:
    document = b"%PDF-1.4\n%%EOF"
    stored = stored_files.store_file(user_id="user-1", page_url="https://example.com/", body=document,
                                     folder=stored_files.PDFS, extension="pdf", content_type="application/pdf",
                                     metadata={"pages": 1})
    assert stored.storage_key == f"pdfs/user-1/{stored.file_id}.pdf"
    record = boto3.resource("dynamodb").Table(get_settings().files_table).get_item(Key={"id": stored.file_id})
    assert record["Item"]["filename"] == f"{stored.file_id}.pdf"
    body = boto3.client("s3").get_object(Bucket=get_settings().files_bucket, Key=stored.storage_key)
    assert body["Body"].read() == document and body["ContentType"] == "application/pdf"
    # The key comes from the record, so a PDF is removed from its own folder.
    data = stored_files.delete_file(user_id="user-1", file_id=stored.file_id, delete_from_storage=True).as_data()
    assert data["deletedFromStorage"] and data["deletedFile"]["storage_key"] == stored.storage_key
    assert objects() == []
