"""Over real HTTP against the local API: authentication, key listing, file deletion, error routes."""

from __future__ import annotations

import time
import uuid

import boto3
import jwt
import pytest
import requests

from tests.support.api_answers import assert_envelope_error, assert_success, session_token
from tests.support.local_api import LocalApi
from webcapture import stored_files
from webcapture.auth import api_keys, refusals
from webcapture.settings import get_settings

# ------------------------------------------------------------------ 401
# Each case's second sentence (webcapture/auth/refusals.py), whether API Gateway or the authorizer refuses.
SENTENCES = {
    "missing": refusals.NO_HEADER, "basic": refusals.NOT_BEARER, "bearer-empty": refusals.NOT_BEARER,
    "unknown-key": refusals.INVALID_KEY, "garbage": refusals.INVALID_KEY,
    "bad-jwt": f"{refusals.SESSION_FAILED}: its signature does not verify.",
    "expired-jwt": f"{refusals.SESSION_FAILED}: it has expired.",
    "jwt-no-sub": f"{refusals.SESSION_FAILED}: it has no 'sub' claim.",
}


@pytest.mark.parametrize("case", list(SENTENCES))
def test_401_cases(local_api: LocalApi, case: str) -> None:
    headers = {
        "missing": None,
        "basic": "Basic dXNlcjpwYXNz",
        "bearer-empty": "Bearer ",
        "unknown-key": f"Bearer {api_keys.generate_key()}",
        "garbage": "Bearer not-a-key",
        "bad-jwt": "Bearer " + jwt.encode({"sub": "x", "exp": int(time.time()) + 60}, "a-wrong-secret-that-is-long-enough-for-hs256",
                                          algorithm="HS256"),
        "expired-jwt": "Bearer " + session_token(exp=int(time.time()) - 3600),
        "jwt-no-sub": "Bearer " + session_token(sub=None),
    }[case]
    response = requests.get(local_api.url + "/v1/api-keys/list", timeout=30,
                            headers={} if headers is None else {"Authorization": headers})
    body = assert_envelope_error(response, 401, "UNAUTHORIZED")
    assert body["error"]["message"] == SENTENCES[case]


def test_disabled_and_expired_keys_are_401(stack_aws: LocalApi) -> None:
    disabled_key, record = api_keys.create_key("e2e-user", "disabled")
    api_keys.set_enabled(record, enabled=False)
    expired_key, _ = api_keys.create_key("e2e-user", "expired", expires_at="2020-01-01T00:00:00.000Z")
    for key, sentence in ((disabled_key, refusals.INVALID_KEY), (expired_key, refusals.EXPIRED_KEY)):
        body = assert_envelope_error(stack_aws.call("GET", "/v1/api-keys/list", key=key), 401, "UNAUTHORIZED")
        assert body["error"]["message"] == sentence


def test_key_disabled_after_authorizer_cached_it_is_refused_by_the_function(stack_aws: LocalApi) -> None:
    key, record = api_keys.create_key("e2e-user", "soon-disabled")
    assert_success(stack_aws.call("GET", "/v1/api-keys/list", key=key), 0)
    api_keys.set_enabled(record, enabled=False)
    # The authorizer's answer is cached for 300 s; metering in the function still sees the change, and
    # says it in the authorizer's words.
    body = assert_envelope_error(stack_aws.call("GET", "/v1/api-keys/list", key=key), 401, "UNAUTHORIZED")
    assert body["error"]["message"] == refusals.INVALID_KEY


def test_session_token_is_accepted(local_api: LocalApi) -> None:
    body = assert_success(local_api.call("GET", "/v1/api-keys/list", auth=f"Bearer {session_token()}"), 0)
    assert body["data"] == {"apiKeys": [], "total": 0}


# ------------------------------------------------------------------ list
def test_list_shows_own_keys_newest_first(stack_aws: LocalApi) -> None:
    user = f"lister-{uuid.uuid4()}"
    first, _ = api_keys.create_key(user, "first", remaining=50, metadata={"plan": "pro"})
    time.sleep(0.005)
    api_keys.create_key(user, "second")
    api_keys.create_key("another-user", "not mine")
    body = assert_success(stack_aws.call("GET", "/v1/api-keys/list", key=first), 0)
    names = [k["name"] for k in body["data"]["apiKeys"]]
    assert names == ["second", "first"]
    assert body["data"]["total"] == 2
    listed_first = body["data"]["apiKeys"][1]
    assert listed_first["remaining"] == 50 and listed_first["metadata"] == {"plan": "pro"}
    assert listed_first["requestCount"] == 1 and listed_first["lastRequest"]
    assert first not in str(body) and api_keys.hash_key(first) not in str(body)


# ------------------------------------------------------------------ delete
def stored_object_exists(key: str) -> bool:
    s3 = boto3.client("s3")
    try:
        s3.head_object(Bucket=get_settings().files_bucket, Key=key)
        return True
    except s3.exceptions.ClientError:
        return False


@pytest.mark.parametrize("delete_from_storage", [True, False])
def test_delete_own_file(stack_aws: LocalApi, delete_from_storage: bool) -> None:
    stored = stored_files.store_image(user_id=stack_aws.user_id, page_url="https://example.com/", image=b"png",
                                      image_format="png", metadata={})
    response = stack_aws.call("POST", "/v1/files/delete",
                              json={"fileId": stored.file_id, "deleteFromStorage": delete_from_storage})
    data = assert_success(response, 0)["data"]
    assert data["wasFound"] is True and data["deletedFromDatabase"] is True
    assert data["deletedFromStorage"] is delete_from_storage
    assert data["deletedFile"]["storage_key"] == stored.storage_key
    assert stored_object_exists(stored.storage_key) is not delete_from_storage
    again = assert_success(stack_aws.call("POST", "/v1/files/delete", json={"fileId": stored.file_id}), 0)
    assert again["data"]["wasFound"] is False


def test_someone_elses_file_is_not_found_and_survives(stack_aws: LocalApi) -> None:
    stored = stored_files.store_image(user_id="somebody-else", page_url="https://example.com/", image=b"png",
                                      image_format="png", metadata={})
    response = stack_aws.call("POST", "/v1/files/delete", json={"fileId": stored.file_id, "deleteFromStorage": True})
    data = assert_success(response, 0)["data"]
    assert data == {"fileId": stored.file_id, "wasFound": False, "deletedFromDatabase": False,
                    "deletedFromStorage": False, "error": "File not found"}
    assert stored_object_exists(stored.storage_key)


def test_unknown_file(local_api: LocalApi) -> None:
    data = assert_success(local_api.call("POST", "/v1/files/delete", json={"fileId": "nope"}), 0)["data"]
    assert data["wasFound"] is False and data["error"] == "File not found"


# ------------------------------------------------------------------ 4xx routes and bodies
def test_unknown_route_is_404(local_api: LocalApi) -> None:
    assert_envelope_error(local_api.call("GET", "/v1/nothing-here"), 404, "NOT_FOUND")
    assert_envelope_error(local_api.call("POST", "/v2/web/screenshot", json={}), 404, "NOT_FOUND")


@pytest.mark.parametrize(("method", "path"), [("GET", "/v1/web/screenshot"), ("DELETE", "/v1/files/delete"),
                                              ("POST", "/v1/api-keys/list"), ("PUT", "/v1/web/links")])
def test_wrong_method_is_405(local_api: LocalApi, method: str, path: str) -> None:
    assert_envelope_error(local_api.call(method, path), 405, "METHOD_NOT_ALLOWED")


def test_invalid_json_is_400(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/files/delete", data="{not json",
                              headers={"Content-Type": "application/json"})
    assert_envelope_error(response, 400, "INVALID_JSON")


def test_body_over_100kb_is_413(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/files/delete", json={"fileId": "x" * (101 * 1024)})
    assert_envelope_error(response, 413, "PAYLOAD_TOO_LARGE")


def test_a_batch_body_over_1mb_is_413_naming_1mb(local_api: LocalApi) -> None:
    # A batch's limit is 1 MB, not the 100 KB of every other route: 200 KB gets past it to validation.
    item = {"url": "https://example.com/page", "waitForSelector": "x" * 500}
    over = local_api.call("POST", "/v1/batch", json={"operation": "links", "requests": [item] * 2_100})
    body = assert_envelope_error(over, 413, "PAYLOAD_TOO_LARGE")
    assert "1 MB" in body["error"]["message"] and "100 KB" not in body["error"]["message"]
    under = local_api.call("POST", "/v1/batch", json={"operation": "no-such", "requests": [item] * 400})
    assert under.status_code == 422, under.text


def test_validation_is_422_with_every_issue(local_api: LocalApi) -> None:
    response = local_api.call("POST", "/v1/files/delete", json={"fileId": "", "deleteFromStorage": "yes"})
    assert response.status_code == 422
    body = response.json()
    assert body["success"] is False and body["error"]["name"] == "ZodError"
    assert [i["path"] for i in body["error"]["issues"]] == [["fileId"], ["deleteFromStorage"]]
    assert body["error"]["code"] == "VALIDATION_ERROR"
    assert body["error"]["message"] == "fileId: String must contain at least 1 character(s) (and 1 more issue)"
    assert body["error"]["requestId"] == response.headers["X-Request-Id"]
    assert response.headers["X-Request-Id"]


def test_requests_are_counted_even_when_refused(stack_aws: LocalApi) -> None:
    key, _ = api_keys.create_key("counter", "k")
    stack_aws.call("POST", "/v1/files/delete", key=key, data="{bad", headers={"Content-Type": "application/json"})
    stack_aws.call("POST", "/v1/files/delete", key=key, json={"fileId": ""})
    stack_aws.call("POST", "/v1/files/delete", key=key, json={"fileId": "x"})
    refreshed = api_keys.find_by_key(key)
    assert refreshed is not None and refreshed.public()["requestCount"] == 3
