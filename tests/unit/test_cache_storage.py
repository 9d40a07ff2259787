"""The cache's store (CONTRACT 19) against moto: entries round-trip byte for byte, age out, never fail a
request (unreadable or unreachable is a miss), and a deleted file takes only its own entry."""

from __future__ import annotations

import pytest
from botocore.exceptions import EndpointConnectionError

from webcapture import cache
from webcapture.answer_forms import FileAnswer
from webcapture.aws import s3_client
from webcapture.cache import entries, storage
from webcapture.models.requests import ScreenshotRequest
from webcapture.settings import get_settings

pytestmark = pytest.mark.usefixtures("aws_resources")


def key(user: str = "alice", url: str = "https://example.com/") -> cache.CacheKey:
    return cache.cache_key(user, "screenshot", ScreenshotRequest.model_validate({"url": url}), "bytes")


def stored_answer(file_id: str) -> FileAnswer:
    return FileAnswer("json", data={"metadata": {"size": 3}, "fileId": file_id, "permanentUrl": "https://f/x"})


def test_bytes_round_trip_and_age_out(monkeypatch: pytest.MonkeyPatch) -> None:
    body = bytes(range(256)) * 10 + b"\n\n"
    cache.store(key(), FileAnswer("binary", body=body, content_type="image/png", warnings=("cut",)))
    hit = cache.lookup(key(), 60)
    assert hit is not None and hit.answer.body == body and hit.answer.warnings == ("cut",)
    assert hit.answer.content_type == "image/png" and hit.cached_at.endswith("Z")
    assert cache.lookup(key(), 0) is None  # maxAge 0: never read
    later = storage._now_ms() + 61_000
    monkeypatch.setattr(storage, "_now_ms", lambda: later)
    assert cache.lookup(key(), 60) is None and cache.lookup(key(), 120) is not None


def test_json_hit_carries_cached_at_in_metadata() -> None:
    cache.store(key(), stored_answer("f-1"))
    hit = cache.lookup(key(), 60)
    assert hit is not None and hit.answer.data is not None
    assert hit.answer.data["metadata"] == {"size": 3, "cachedAt": hit.cached_at}
    assert hit.answer.data["fileId"] == "f-1"


def test_entry_past_its_files_retention_is_a_miss(monkeypatch: pytest.MonkeyPatch) -> None:
    cache.store(key(), stored_answer("f-1"))
    retention_ms = get_settings().file_retention_days * 86_400_000
    later = storage._now_ms() + retention_ms + 1000
    monkeypatch.setattr(storage, "_now_ms", lambda: later)
    assert cache.lookup(key(), 2_592_000 * 2) is None


@pytest.mark.parametrize("raw", [b"", b"garbage", b"{}\n", b'{"v": 1, "form": "json", "contentType": ""}\n[]',
                                 b'{"v": 99, "form": "binary"}\nxx', b"\xff\xfe\n\x00"])
def test_unreadable_entry_is_a_miss(raw: bytes) -> None:
    s3_client().put_object(Bucket=get_settings().files_bucket, Key=key().object_key, Body=raw)
    with pytest.raises(entries.CorruptEntry):
        entries.decode(raw)
    assert cache.lookup(key(), 60) is None


def test_unreachable_storage_is_a_miss_and_a_skipped_store(monkeypatch: pytest.MonkeyPatch) -> None:
    cache.store(key(), stored_answer("f-1"))

    class Down:
        def get_object(self, **_: object) -> None:
            raise EndpointConnectionError(endpoint_url="https://s3.invalid")

        put_object = get_object

    monkeypatch.setattr(storage, "s3_client", lambda: Down())
    assert cache.lookup(key(), 60) is None
    cache.store(key("bob"), stored_answer("f-2"))  # does not raise
    cache.drop_file_entries("alice", "f-1")  # does not raise


def test_deleted_file_drops_only_an_entry_still_pointing_at_it() -> None:
    cache.store(key(), stored_answer("f-old"))
    cache.store(key(), stored_answer("f-new"))  # the same request rendered again: the entry moved on
    cache.drop_file_entries("alice", "f-old")
    hit = cache.lookup(key(), 60)
    assert hit is not None and hit.answer.data is not None and hit.answer.data["fileId"] == "f-new"
    cache.drop_file_entries("bob", "f-new")  # not bob's
    assert cache.lookup(key(), 60) is not None
    cache.drop_file_entries("alice", "f-new")
    assert cache.lookup(key(), 60) is None
    listed = s3_client().list_objects_v2(Bucket=get_settings().files_bucket, Prefix="cache/")
    assert listed["KeyCount"] == 0  # entry and both markers gone
