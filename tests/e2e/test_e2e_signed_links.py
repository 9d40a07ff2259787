"""Signed links over real HTTP against the local API (CONTRACT 19): no Authorization header, the query is
the request, an HMAC of it the proof; every way a link can be wrong is the same 403."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest
import requests

from tests.support.api_answers import assert_envelope_error, assert_success, remaining
from tests.support.client_cli import webcapture
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size
from webcapture.auth import api_keys
from webcapture_client.signed_links import signed_link

RENDER = "/v1/render/screenshot"


class Signer:
    def __init__(self, api: LocalApi, user: str) -> None:
        self.api, self.user = api, user
        self.key, _ = api_keys.create_key(user, "k", remaining=20)
        body = assert_success(api.call("GET", "/v1/signing/secret", key=self.key), 0)
        assert body["data"]["userId"] == user and body["data"]["secret"].startswith("wcs_")
        self.secret: str = body["data"]["secret"]

    def link(self, body: dict[str, Any] | None = None, **kwargs: Any) -> str:
        body = body if body is not None else shot()
        return signed_link(self.api.url, self.user, self.secret, body, **kwargs)


def shot(**extra: Any) -> dict[str, Any]:
    return {"url": get_server().url("/plain.html"), "screenshotOptions": {"fullPage": False},
            "viewport": {"width": 320, "height": 200}, **extra}


def with_query(link: str, **changes: str | None) -> str:
    parts = urlsplit(link)
    params = dict(parse_qsl(parts.query, keep_blank_values=True))
    for name, value in changes.items():
        if value is None:
            params.pop(name, None)
        else:
            params[name] = value
    return parts._replace(query=urlencode(params)).geturl()


@pytest.fixture
def signer(stack_aws: LocalApi, request: pytest.FixtureRequest) -> Signer:
    return Signer(stack_aws, f"signer-{request.node.name[:40]}")


def assert_refused(response: requests.Response) -> str:
    body = assert_envelope_error(response, 403, "INVALID_SIGNATURE")
    assert "Cache-Control" not in response.headers or "public" not in response.headers["Cache-Control"]
    message: str = body["error"]["message"]
    return message


def test_valid_link_renders_without_a_key_and_is_cached(signer: Signer) -> None:
    link = signer.link()
    assert "Authorization" not in requests.Request("GET", link).prepare().headers
    first = requests.get(link, timeout=60)
    assert first.status_code == 200, first.text[:300]
    assert first.headers["Content-Type"] == "image/png" and png_size(first.content) == (320, 200)
    assert first.headers["Cache-Control"] == "public, max-age=86400"
    assert first.headers["X-Cache"] == "MISS" and remaining(signer.key) == 19
    again = requests.get(link, timeout=60)
    assert again.headers["X-Cache"] == "HIT" and again.content == first.content
    assert again.headers["Cache-Control"] == "public, max-age=86400" and remaining(signer.key) == 19


def test_link_fields_take_their_types_and_max_age(signer: Signer) -> None:
    body = shot(maxAge=120, screenshotOptions={"fullPage": False, "type": "jpeg", "quality": 50},
                viewport={"width": 300, "height": 150, "deviceScaleFactor": 1.5}, hideSelectors=["#none"])
    response = requests.get(signer.link(body), timeout=60)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["Content-Type"] == "image/jpeg"
    assert response.headers["Cache-Control"] == "public, max-age=120"


def test_link_shares_the_entry_of_the_same_post(signer: Signer) -> None:
    posted = signer.api.call("POST", "/v1/web/screenshot", key=signer.key, json=shot(maxAge=600))
    assert posted.headers["X-Cache"] == "MISS"
    linked = requests.get(signer.link(shot(maxAge=600)), timeout=60)
    assert linked.headers["X-Cache"] == "HIT" and linked.content == posted.content
    assert remaining(signer.key) == 19


def test_every_bad_link_is_the_same_403(signer: Signer, stack_aws: LocalApi) -> None:
    good = signer.link(expires_in_s=600)
    stranger = Signer.__new__(Signer)
    stranger.api, stranger.user, stranger.secret = stack_aws, "nobody-has-this-id", signer.secret
    refused = {
        "tampered": with_query(good, **{"viewport.width": "321"}),
        "added": with_query(good, waitTime="10"),
        "wrong": with_query(good, signature="0" * 64),
        "short": with_query(good, signature="abc"),
        "missing": with_query(good, signature=None),
        "no user": with_query(good, user=None),
        "other user": with_query(good, user="someone-else"),
        "expired": signer.link(expires_in_s=-5),
        "expires changed": with_query(good, expires="9999999999"),
        "unknown user": stranger.link(),
        "twice": good + "&url=" + requests.utils.quote(get_server().url("/plain.html"), safe=""),
    }
    messages = {name: assert_refused(requests.get(link, timeout=60)) for name, link in refused.items()}
    assert len(set(messages.values())) == 1, messages
    assert requests.get(good, timeout=60).status_code == 200
    assert remaining(signer.key) == 19  # refusals cost nothing


def test_rotated_secret_refuses_old_links(signer: Signer) -> None:
    old = signer.link(shot(waitTime=1))
    assert requests.get(old, timeout=60).status_code == 200
    rotated = assert_success(signer.api.call("POST", "/v1/signing/secret/rotate", key=signer.key), 0)["data"]
    assert rotated["secret"] != signer.secret and rotated["userId"] == signer.user
    assert_refused(requests.get(old, timeout=60))
    signer.secret = rotated["secret"]
    assert requests.get(signer.link(shot(waitTime=1)), timeout=60).status_code == 200
    fetched = assert_success(signer.api.call("GET", "/v1/signing/secret", key=signer.key), 0)["data"]
    assert fetched["secret"] == rotated["secret"]


def test_signed_but_invalid_fields_are_422(signer: Signer) -> None:
    for body, path, code in (
        ({**shot(), "viewport": {"width": "wide"}}, ["viewport", "width"], "invalid_type"),
        ({**shot(), "maxAge": -1}, ["maxAge"], "too_small"),
        ({**shot(), "maxAge": 1.5}, ["maxAge"], "invalid_type"),
        ({**shot(), "url": "ftp://example.com/"}, ["url"], "invalid_string"),
    ):
        response = requests.get(signer.link(body), timeout=60)
        assert response.status_code == 422, response.text
        issues = response.json()["error"]["issues"]
        assert [(issue["path"], issue["code"]) for issue in issues] == [(path, code)]
    assert remaining(signer.key) == 20


def test_signing_secret_needs_a_key(stack_aws: LocalApi) -> None:
    assert requests.get(stack_aws.url + "/v1/signing/secret", timeout=30).status_code == 401
    assert requests.post(stack_aws.url + "/v1/signing/secret/rotate", timeout=30).status_code == 401
    # The public route is GET only.
    assert requests.post(stack_aws.url + RENDER, timeout=30).status_code == 405


def test_cli_prints_a_link_that_renders(signer: Signer) -> None:
    run = webcapture(signer.api, "sign", get_server().url("/plain.html"), "--no-full-page", "--width", "330",
                     "--height", "220", "--expires-in", "600", key=signer.key)
    assert run.returncode == 0, run.stderr
    link = run.stdout.strip()
    assert link.startswith(signer.api.url + RENDER + "?") and "signature=" in link and "expires=" in link
    response = requests.get(link, timeout=60)
    assert response.status_code == 200, response.text[:300]
    assert png_size(response.content) == (330, 220)
