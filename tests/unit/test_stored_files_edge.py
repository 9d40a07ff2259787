"""Stored files and odd user ids (a JWT `sub` is any string), a day of caching, and CloudFront invalidation
of a deleted file (moto in-process)."""

from __future__ import annotations

import uuid

import boto3
import pytest

from webcapture import stored_files
from webcapture.observability import metrics
from webcapture.settings import get_settings
from webcapture.stored_files import SCREENSHOTS, file_key, key_segment, public_url_for

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
FILE_ID = "0b7c8f4e-1111-2222-3333-444455556666"


def store(user: str) -> stored_files.StoredFile:
    return stored_files.store_image(user_id=user, page_url="https://example.com/", image=PNG, image_format="png",
                                    metadata={"width": 1, "height": 1})


@pytest.mark.parametrize(("user_id", "segment"), [
    ("a/b?c#d", "a!2Fb!3Fc!23d"),
    ("user-1_x.y", "user-1_x.y"),  # ordinary ids keep their keys
    ("..", "!2E!2E"), (".", "!2E"),
    ("auth0|12 3", "auth0!7C12!203"),
    ("!2F", "!212F"),  # the escape character is escaped too: different ids never share a segment
    ("é", "!C3!A9"),
])
def test_user_ids_become_one_safe_key_segment(user_id: str, segment: str) -> None:
    assert key_segment(user_id) == segment
    assert file_key(SCREENSHOTS, user_id, FILE_ID, "png") == f"screenshots/{segment}/{FILE_ID}.png"


def test_public_urls_are_percent_encoded(settings_env: pytest.MonkeyPatch) -> None:
    assert public_url_for(file_key(SCREENSHOTS, "a/b?c#d", FILE_ID, "webp")) == (
        f"https://files.example.test/screenshots/a!2Fb!3Fc!23d/{FILE_ID}.webp")
    assert public_url_for("screenshots/odd key?#/x.png") == "https://files.example.test/screenshots/odd%20key%3F%23/x.png"


def test_a_slashy_user_id_stays_in_its_own_folder(aws_resources: None) -> None:
    stored = store("a/b?c#d")
    assert stored.storage_key == f"screenshots/a!2Fb!3Fc!23d/{stored.file_id}.png"
    assert stored.storage_key.count("/") == 2 and "?" not in stored.public_url and "#" not in stored.public_url
    s3 = boto3.client("s3")
    obj = s3.get_object(Bucket=get_settings().files_bucket, Key=stored.storage_key)
    assert obj["CacheControl"] == "public, max-age=86400"
    assert s3.list_objects_v2(Bucket=get_settings().files_bucket, Prefix="screenshots/a/").get("KeyCount") == 0
    deleted = stored_files.delete_file(user_id="a/b?c#d", file_id=stored.file_id, delete_from_storage=True)
    assert deleted.deleted_from_storage


def distribution() -> str:
    client = boto3.client("cloudfront")
    config = {"CallerReference": str(uuid.uuid4()), "Comment": "files", "Enabled": True,
              "Origins": {"Quantity": 1, "Items": [{"Id": "files", "DomainName": "files.s3.amazonaws.com",
                                                    "S3OriginConfig": {"OriginAccessIdentity": ""}}]},
              "DefaultCacheBehavior": {"TargetOriginId": "files", "ViewerProtocolPolicy": "redirect-to-https"}}
    return str(client.create_distribution(DistributionConfig=config)["Distribution"]["Id"])


def invalidated_paths(distribution_id: str) -> list[str]:
    client = boto3.client("cloudfront")
    paths = []
    for summary in client.list_invalidations(DistributionId=distribution_id)["InvalidationList"].get("Items", []):
        batch = client.get_invalidation(DistributionId=distribution_id, Id=summary["Id"])
        paths += batch["Invalidation"]["InvalidationBatch"]["Paths"]["Items"]
    return paths


@pytest.fixture
def with_distribution(aws_resources: None, settings_env: pytest.MonkeyPatch) -> str:
    distribution_id = distribution()
    settings_env.setenv("FILES_DISTRIBUTION_ID", distribution_id)
    get_settings.cache_clear()
    return distribution_id


def test_deleting_a_file_invalidates_its_path(with_distribution: str) -> None:
    stored = store("a/b?c#d")
    kept = store("user-1")
    result = stored_files.delete_file(user_id="a/b?c#d", file_id=stored.file_id, delete_from_storage=True)
    assert result.deleted_from_storage and result.error is None
    assert invalidated_paths(with_distribution) == [f"/{stored.storage_key}"]
    # Only a file gone from storage is invalidated: a record-only deletion leaves the object in place.
    stored_files.delete_file(user_id="user-1", file_id=kept.file_id, delete_from_storage=False)
    assert invalidated_paths(with_distribution) == [f"/{stored.storage_key}"]


def test_a_failed_invalidation_is_not_a_failed_delete(aws_resources: None, settings_env: pytest.MonkeyPatch) -> None:
    settings_env.setenv("FILES_DISTRIBUTION_ID", "ENOSUCHDISTRIBUTION")
    get_settings.cache_clear()
    stored = store("user-1")
    metrics.clear_metrics()
    result = stored_files.delete_file(user_id="user-1", file_id=stored.file_id, delete_from_storage=True)
    assert (result.was_found, result.deleted_from_database, result.deleted_from_storage) == (True, True, True)
    assert result.error is None
    assert metrics.metric_set["CacheInvalidationFailures"]["Value"] == [1.0]  # counted, for an alarm
    metrics.clear_metrics()


def test_without_a_distribution_nothing_is_invalidated(aws_resources: None) -> None:
    distribution_id = distribution()  # exists, but the function is not told about it (the local API's case)
    stored = store("user-1")
    assert stored_files.delete_file(user_id="user-1", file_id=stored.file_id, delete_from_storage=True).deleted_from_storage
    assert invalidated_paths(distribution_id) == []
