"""Over real HTTP against the local API: a session ends at its `exp` despite the authorizer's cache, odd user
ids stay inside their own folder and URL, and a key whose `remaining` is NULL is unlimited."""

from __future__ import annotations

import time

import boto3
import requests

from tests.support.api_answers import assert_envelope_error, assert_success, session_token
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size
from webcapture.auth import EXPIRY_LEEWAY_S, api_keys
from webcapture.settings import get_settings


def test_a_cached_session_is_refused_once_its_token_expires(local_api: LocalApi) -> None:
    # Just inside the authorizer's clock-skew leeway: accepted, and the gateway caches that answer for 300 s.
    expires = int(time.time()) - EXPIRY_LEEWAY_S + 10
    token = f"Bearer {session_token(sub='short-session', exp=expires)}"
    assert_success(local_api.call("GET", "/v1/api-keys/list", auth=token), 0)
    time.sleep(max(0.0, expires + EXPIRY_LEEWAY_S + 1 - time.time()))
    # The cached authorizer answer still says "allow"; the function reads `exp` and refuses.
    body = assert_envelope_error(local_api.call("GET", "/v1/api-keys/list", auth=token), 401, "UNAUTHORIZED")
    assert body["error"]["message"].startswith("Authentication required")


def test_a_user_id_with_slashes_and_query_characters_stays_in_its_folder(local_api: LocalApi) -> None:
    token = f"Bearer {session_token(sub='a/b?c#d')}"
    response = local_api.call("POST", "/v1/web/screenshot", auth=token, json={
        "url": get_server().url("/plain.html"), "base64": True, "screenshotOptions": {"fullPage": False}})
    data = assert_success(response, 1)["data"]
    url = data["permanentUrl"]
    assert url.endswith(f"/screenshots/a!2Fb!3Fc!23d/{data['fileId']}.png") and "?" not in url and "#" not in url
    fetched = requests.get(url, timeout=30)  # the permanent URL reaches exactly the stored object
    assert fetched.status_code == 200 and png_size(fetched.content) == (1280, 800)
    deleted = assert_success(local_api.call("POST", "/v1/files/delete", auth=token,
                                            json={"fileId": data["fileId"], "deleteFromStorage": True}), 0)
    assert deleted["data"]["deletedFromStorage"] is True
    assert requests.get(url, timeout=30).status_code == 404


def test_a_key_whose_remaining_is_null_is_unlimited(stack_aws: LocalApi) -> None:
    key, record = api_keys.create_key("null-remaining-user", "k", remaining=3)
    boto3.resource("dynamodb").Table(get_settings().api_keys_table).update_item(
        Key={"keyHash": record.key_hash}, UpdateExpression="SET remaining = :null",
        ExpressionAttributeValues={":null": None})
    for _ in range(2):
        body = assert_success(stack_aws.call("GET", "/v1/api-keys/list", key=key), 0)
    assert body["data"]["apiKeys"][0]["remaining"] is None
    assert body["data"]["apiKeys"][0]["requestCount"] == 2
