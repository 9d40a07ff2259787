"""maxAge over real HTTP against the local API (docs/cache-and-signed-links.md#cache-and-signed-links): a
repeat answered from the cache exactly as the first answer, without credits, a concurrency slot or the
browser; keyed so that nothing else shares it."""

from __future__ import annotations

import base64
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from tests.support.api_answers import assert_success, remaining
from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from webcapture.auth import api_keys
from webcapture.aws import dynamodb_table, s3_client
from webcapture.cache.keys import user_folder
from webcapture.settings import get_settings

SCREENSHOT = "/v1/web/screenshot"


def shot_body(max_age: int = 600, **extra: Any) -> dict[str, Any]:
    return {"url": get_server().url("/plain.html"), "screenshotOptions": {"fullPage": False},
            "viewport": {"width": 400, "height": 300}, "maxAge": max_age, **extra}


def new_key(credits: int = 50) -> tuple[str, str]:
    user = f"cache-{uuid.uuid4().hex[:8]}"
    key, _ = api_keys.create_key(user, "k", remaining=credits)
    return key, user


def cache_objects(user: str) -> dict[str, bytes]:
    s3, bucket = s3_client(), get_settings().files_bucket
    listed = s3.list_objects_v2(Bucket=bucket, Prefix=user_folder(user) + "/").get("Contents", [])
    return {item["Key"]: s3.get_object(Bucket=bucket, Key=item["Key"])["Body"].read() for item in listed}


def entry_keys(user: str, operation: str) -> list[str]:
    return [key for key in cache_objects(user) if f"/entries/{operation}/" in key]


def post(api: LocalApi, key: str, path: str, body: dict[str, Any], **kwargs: Any) -> requests.Response:
    return api.call("POST", path, key=key, json=body, **kwargs)


def assert_hit_of(hit: requests.Response, miss: requests.Response) -> dict[str, Any]:
    """The hit is the miss's answer with metadata.cachedAt, at no cost; returns the hit's data."""
    assert (miss.headers["X-Cache"], hit.headers["X-Cache"]) == ("MISS", "HIT")
    first, again = miss.json(), assert_success(hit, 0)
    assert first["creditsCost"] > 0 and again["requestId"] != first["requestId"]
    data: dict[str, Any] = again["data"]
    cached_at = data["metadata"].pop("cachedAt")
    assert cached_at == hit.headers["X-Cached-At"] and cached_at.endswith("Z")
    assert data == first["data"] and "cachedAt" not in first["data"]["metadata"]
    return data


# ------------------------------------------------------------------ each endpoint and form
def test_screenshot_bytes_miss_then_hit_costs_nothing(stack_aws: LocalApi) -> None:
    key, user = new_key()
    miss = post(stack_aws, key, SCREENSHOT, shot_body())
    assert miss.status_code == 200 and miss.headers["X-Cache"] == "MISS"
    assert miss.headers["Content-Type"] == "image/png" and "X-Cached-At" not in miss.headers
    assert remaining(key) == 49
    hit = post(stack_aws, key, SCREENSHOT, shot_body())
    assert hit.status_code == 200 and hit.headers["X-Cache"] == "HIT"
    assert hit.content == miss.content and hit.headers["Content-Type"] == "image/png"
    assert hit.headers["X-Cached-At"].endswith("Z") and hit.headers["X-Request-Id"] != miss.headers["X-Request-Id"]
    assert remaining(key) == 49  # nothing charged
    record = api_keys.find_by_key(key)
    assert record is not None and record.item["requestCount"] == 2  # still counted
    assert len(entry_keys(user, "screenshot")) == 1


def test_screenshot_base64_and_stored_forms_answer_the_same_file(stack_aws: LocalApi) -> None:
    key, user = new_key()
    miss = post(stack_aws, key, SCREENSHOT, shot_body(base64=True))
    hit = post(stack_aws, key, SCREENSHOT, shot_body(base64=True))
    data = assert_hit_of(hit, miss)
    assert base64.b64decode(data["image"])[:8] == b"\x89PNG\r\n\x1a\n"
    assert requests.get(data["permanentUrl"], timeout=30).content == base64.b64decode(data["image"])
    # Accept: application/json stores without the image: another answer form, another entry.
    stored_miss = post(stack_aws, key, SCREENSHOT, shot_body(), headers={"Accept": "application/json"})
    stored_hit = post(stack_aws, key, SCREENSHOT, shot_body(), headers={"Accept": "application/json"})
    stored = assert_hit_of(stored_hit, stored_miss)
    assert "image" not in stored and stored["fileId"] != data["fileId"]
    assert remaining(key) == 48
    assert len(entry_keys(user, "screenshot")) == 2


def test_pdf_bytes_and_base64_miss_then_hit(stack_aws: LocalApi) -> None:
    key, _ = new_key()
    body = {"url": get_server().url("/printable.html"), "maxAge": 600}
    miss = post(stack_aws, key, "/v1/web/pdf", body)
    hit = post(stack_aws, key, "/v1/web/pdf", body)
    assert (miss.headers["X-Cache"], hit.headers["X-Cache"]) == ("MISS", "HIT")
    assert hit.content == miss.content and hit.content.startswith(b"%PDF-")
    assert hit.headers["Content-Type"] == "application/pdf"
    stored_miss = post(stack_aws, key, "/v1/web/pdf", {**body, "base64": True})
    data = assert_hit_of(post(stack_aws, key, "/v1/web/pdf", {**body, "base64": True}), stored_miss)
    assert base64.b64decode(data["pdf"]).startswith(b"%PDF-") and data["fileId"]
    assert remaining(key) == 48


@pytest.mark.parametrize(("path", "body", "cost"), [
    ("/v1/web/links", {"url": "/links.html"}, 1),
    ("/v1/web/markdown", {"url": "/scripted.html"}, 1),
    ("/v1/web/content", {"url": "/scripted.html"}, 1),
])
def test_json_endpoints_miss_then_hit(stack_aws: LocalApi, path: str, body: dict[str, Any], cost: int) -> None:
    key, _ = new_key()
    request = {**body, "url": get_server().url(body["url"]), "maxAge": 600}
    miss = post(stack_aws, key, path, request)
    assert_success(miss, cost)
    data = assert_hit_of(post(stack_aws, key, path, request), miss)
    assert data["metadata"]["url"] == request["url"]
    assert remaining(key) == 50 - cost


def test_ai_extract_miss_then_hit_asks_the_model_once(stack_aws: LocalApi, fake_openai: FakeOpenAI) -> None:
    key, _ = new_key()
    fake_openai.requests.clear()
    fake_openai.script(json_completion({"title": "Cached"}))
    request = {"url": get_server().url("/product.html"), "prompt": "The title", "maxAge": 600}
    miss = post(stack_aws, key, "/v1/web/ai-extract", request)
    assert_success(miss, 5)
    data = assert_hit_of(post(stack_aws, key, "/v1/web/ai-extract", request), miss)
    assert data["extracted"] == {"title": "Cached"} and len(fake_openai.requests) == 1
    assert remaining(key) == 45


# ------------------------------------------------------------------ what is and is not the same request
def test_entry_expires_after_max_age(stack_aws: LocalApi) -> None:
    key, _ = new_key()
    assert post(stack_aws, key, SCREENSHOT, shot_body(60)).headers["X-Cache"] == "MISS"
    assert post(stack_aws, key, SCREENSHOT, shot_body(60)).headers["X-Cache"] == "HIT"
    time.sleep(1.2)
    # Same canonical request (maxAge is not part of it), but the entry is older than one second by then.
    assert post(stack_aws, key, SCREENSHOT, shot_body(1)).headers["X-Cache"] == "MISS"
    assert post(stack_aws, key, SCREENSHOT, shot_body(60)).headers["X-Cache"] == "HIT"
    assert remaining(key) == 48


def test_changed_option_and_other_user_are_misses(stack_aws: LocalApi) -> None:
    key, user = new_key()
    other_key, _ = new_key()
    assert post(stack_aws, key, SCREENSHOT, shot_body()).headers["X-Cache"] == "MISS"
    changed = shot_body(screenshotOptions={"fullPage": False, "type": "jpeg"})
    jpeg = post(stack_aws, key, SCREENSHOT, changed)
    assert jpeg.headers["X-Cache"] == "MISS" and jpeg.headers["Content-Type"] == "image/jpeg"
    assert post(stack_aws, key, SCREENSHOT, shot_body(blockAds=True)).headers["X-Cache"] == "MISS"
    # Spelling out a default is the same request.
    same = shot_body(waitUntil="load", screenshotOptions={"fullPage": False, "type": "png"})
    assert post(stack_aws, key, SCREENSHOT, same).headers["X-Cache"] == "HIT"
    assert post(stack_aws, other_key, SCREENSHOT, shot_body()).headers["X-Cache"] == "MISS"
    assert remaining(key) == 47 and remaining(other_key) == 49
    assert len(entry_keys(user, "screenshot")) == 3


def test_max_age_zero_neither_reads_nor_writes(stack_aws: LocalApi) -> None:
    key, user = new_key()
    for _ in range(2):
        response = post(stack_aws, key, SCREENSHOT, shot_body(0))
        assert response.status_code == 200 and response.headers["X-Cache"] == "MISS"
    assert cache_objects(user) == {} and remaining(key) == 48


def test_hit_needs_no_concurrency_slot(stack_aws: LocalApi) -> None:
    key, _ = new_key()
    assert post(stack_aws, key, SCREENSHOT, shot_body()).headers["X-Cache"] == "MISS"
    record = api_keys.find_by_key(key)
    assert record is not None
    far = int(time.time() * 1000) + 600_000
    dynamodb_table(get_settings().api_keys_table).update_item(
        Key={"keyHash": record.item["keyHash"]}, UpdateExpression="SET maxConcurrency = :one, leases = :held",
        ExpressionAttributeValues={":one": 1, ":held": {f"{far}:someone-else"}})
    assert post(stack_aws, key, SCREENSHOT, shot_body()).headers["X-Cache"] == "HIT"
    refused = post(stack_aws, key, SCREENSHOT, shot_body(blockAds=True))
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "CONCURRENCY_LIMIT_EXCEEDED"


def test_deleted_file_takes_its_entry_with_it(stack_aws: LocalApi) -> None:
    key, user = new_key()
    first = post(stack_aws, key, SCREENSHOT, shot_body(base64=True)).json()["data"]
    assert post(stack_aws, key, SCREENSHOT, shot_body(base64=True)).headers["X-Cache"] == "HIT"
    assert len(cache_objects(user)) == 2  # the entry and the marker naming it from the file
    deleted = post(stack_aws, key, "/v1/files/delete", {"fileId": first["fileId"], "deleteFromStorage": True})
    assert deleted.json()["data"]["wasFound"] is True
    assert cache_objects(user) == {}
    again = post(stack_aws, key, SCREENSHOT, shot_body(base64=True))
    assert again.headers["X-Cache"] == "MISS" and again.json()["data"]["fileId"] != first["fileId"]


def test_another_users_delete_leaves_the_entry(stack_aws: LocalApi) -> None:
    key, user = new_key()
    other_key, _ = new_key()
    first = post(stack_aws, key, SCREENSHOT, shot_body(base64=True)).json()["data"]
    refused = post(stack_aws, other_key, "/v1/files/delete", {"fileId": first["fileId"]})
    assert refused.json()["data"]["wasFound"] is False
    assert len(cache_objects(user)) == 2
    assert post(stack_aws, key, SCREENSHOT, shot_body(base64=True)).headers["X-Cache"] == "HIT"


# ------------------------------------------------------------------ entries that cannot be read
@pytest.mark.parametrize("damage", [b"not an entry", b'{"v": 1, "form": "json"}\n{', b"", None])
def test_unreadable_or_missing_entry_is_a_miss(stack_aws: LocalApi, damage: bytes | None) -> None:
    key, user = new_key()
    miss = post(stack_aws, key, SCREENSHOT, shot_body())
    (entry,) = entry_keys(user, "screenshot")
    s3, bucket = s3_client(), get_settings().files_bucket
    if damage is None:
        s3.delete_object(Bucket=bucket, Key=entry)
    else:
        s3.put_object(Bucket=bucket, Key=entry, Body=damage)
    again = post(stack_aws, key, SCREENSHOT, shot_body())
    assert again.status_code == 200 and again.headers["X-Cache"] == "MISS"
    assert again.content[:8] == miss.content[:8] and remaining(key) == 48
    # The render replaced the damaged entry.
    assert post(stack_aws, key, SCREENSHOT, shot_body()).headers["X-Cache"] == "HIT"


# ------------------------------------------------------------------ bad maxAge
@pytest.mark.parametrize(("value", "code"), [
    (-1, "too_small"), (2_592_001, "too_big"), (1.5, "invalid_type"), ("60", "invalid_type"),
])
def test_bad_max_age_is_422(stack_aws: LocalApi, value: object, code: str) -> None:
    key, _ = new_key()
    for path in (SCREENSHOT, "/v1/web/links", "/v1/web/pdf"):
        response = post(stack_aws, key, path, {"url": get_server().url("/plain.html"), "maxAge": value})
        assert response.status_code == 422, response.text
        issues = response.json()["error"]["issues"]
        assert [(issue["path"], issue["code"]) for issue in issues] == [(["maxAge"], code)]
    assert remaining(key) == 50


def test_hit_loads_nothing(stack_aws: LocalApi) -> None:
    """After the miss the page's server is gone: a render would fail (502); the hit still answers."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>gone soon</title><p>here once</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    key, _ = new_key()
    body = {"url": f"http://127.0.0.1:{server.server_port}/", "maxAge": 600}
    try:
        miss = post(stack_aws, key, "/v1/web/content", body)
        assert_success(miss, 1)
    finally:
        server.shutdown()
        server.server_close()
    assert post(stack_aws, key, "/v1/web/content", {**body, "waitTime": 1}).status_code == 502
    data = assert_hit_of(post(stack_aws, key, "/v1/web/content", body), miss)
    assert "here once" in data["html"]
