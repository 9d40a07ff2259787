"""Profiles end to end (docs/profiles.md), over HTTP to a local API of its own, with real Chromium and two
sites behind a login on loopback (tests/support/login_site.py): a form that sets an HttpOnly session cookie,
and a single-page app that keeps its token in localStorage.

One request logs in with `actions` and saves the session; later requests, batch items and crawl pages start
from it. A login made by Playwright elsewhere is imported. Another user's profile, a deleted one, a state
over 1 MB and the 101st profile are refused; a cookie for a host the egress policy refuses is dropped. Two
saves race. At the end, neither the password typed nor any session the sites issued appears in the stack's
log or in any answer body, and every state object in S3 is stored with aws:kms.

The tests share the module's stack and sites and run in file order (the last one reads what all did).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
import requests
from playwright.sync_api import sync_playwright

from localapi.stack import LOCAL_BUCKET
from tests.support.api_answers import assert_envelope_error
from tests.support.jobs_client import all_results, credits_left, wait_until_settled
from tests.support.local_api import LocalApi, start_jobs_stack
from tests.support.login_site import (
    FORM_NAME,
    PAGES,
    PASSWORD,
    SPA_NAME,
    USER,
    FormSite,
    SpaSite,
    login_actions,
)
from tests.support.stack_stores import stack_stores
from webcapture.auth import api_keys
from webcapture.browser import resolve_chromium

CREDITS = 2_000
LOGGED_OUT = "please log in"


@pytest.fixture(scope="module")
def form_site() -> Iterator[FormSite]:
    site = FormSite("127.0.9.1")
    site.start()
    yield site
    site.stop()


@pytest.fixture(scope="module")
def spa_site() -> Iterator[SpaSite]:
    site = SpaSite("127.0.9.2")
    site.start()
    yield site
    site.stop()


@pytest.fixture(scope="module")
def bodies() -> list[str]:
    """Every answer body of the module, for the secrets' check at the end."""
    return []


@pytest.fixture(scope="module")
def api(bodies: list[str]) -> Iterator[LocalApi]:
    stack = start_jobs_stack("127.0.0.0/8", CREDITS)
    call = stack.call

    def recorded(method: str, path: str, **kwargs: Any) -> requests.Response:
        response = call(method, path, **kwargs)
        bodies.append(response.text)
        return response

    stack.call = recorded  # type: ignore[method-assign]
    yield stack
    stack.stop()


@pytest.fixture(scope="module")
def other_key(api: LocalApi) -> str:
    """Another user's key, with credits of its own."""
    with pytest.MonkeyPatch.context() as patch, stack_stores(api, patch):
        key, _ = api_keys.create_key("profiles-other-user", "k", remaining=100)
    return key


def new_profile(api: LocalApi, name: str, key: str | None = None) -> dict[str, Any]:
    response = api.call("POST", "/v1/profiles", json={"name": name}, key=key)
    assert response.status_code == 201, response.text
    assert response.json()["creditsCost"] == 0
    data: dict[str, Any] = response.json()["data"]
    return data


def profile_of(api: LocalApi, profile_id: str) -> dict[str, Any]:
    response = api.call("GET", f"/v1/profiles/{profile_id}")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def markdown(api: LocalApi, url: str, key: str | None = None, **body: Any) -> requests.Response:
    return api.call("POST", "/v1/web/markdown", json={"url": url, "onlyMainContent": False, **body}, key=key)


def page_text(response: requests.Response) -> str:
    assert response.status_code == 200, response.text
    text: str = response.json()["data"]["markdown"]
    return text


@pytest.fixture(scope="module")
def logged_in(api: LocalApi, form_site: FormSite, spa_site: SpaSite) -> dict[str, str]:
    """A profile per site, logged in by one request each (filled in by the first test)."""
    return {}


@pytest.mark.parametrize("site_name", ["form", "spa"])
def test_one_request_logs_in_and_later_ones_are_logged_in(
        api: LocalApi, form_site: FormSite, spa_site: SpaSite, logged_in: dict[str, str], site_name: str) -> None:
    site, name = (form_site, FORM_NAME) if site_name == "form" else (spa_site, SPA_NAME)
    made = new_profile(api, f"{site_name} login")
    assert made["version"] == 1 and made["origins"] == [] and made["size"] == 0
    assert LOGGED_OUT in page_text(markdown(api, site.url("/account")))

    login = markdown(api, site.url("/login"), actions=login_actions(),
                     profile={"id": made["profileId"], "save": True})
    assert login.status_code == 200, login.text
    assert "warning" not in login.json()["data"] and login.json()["creditsCost"] == 1
    saved = profile_of(api, made["profileId"])
    assert saved["version"] == 2 and saved["size"] > 0
    assert saved["origins"] == (["127.0.9.1"] if site_name == "form" else [spa_site.origin])

    account = page_text(markdown(api, site.url("/account"), profile={"id": made["profileId"]}))
    assert f"Signed in as {name}" in account and LOGGED_OUT not in account
    # Without the profile, still a stranger: nothing of the session stayed in the browser.
    assert LOGGED_OUT in page_text(markdown(api, site.url("/account")))
    logged_in[site_name] = made["profileId"]


def test_a_batch_of_20_and_a_10_page_crawl_are_logged_in(
        api: LocalApi, form_site: FormSite, spa_site: SpaSite, logged_in: dict[str, str]) -> None:
    items = [{"url": form_site.url(f"/account/{n % PAGES + 1}"), "onlyMainContent": False,
              "profile": {"id": logged_in["form"]}} for n in range(10)]
    items += [{"url": spa_site.url("/account"), "onlyMainContent": False, "profile": {"id": logged_in["spa"]}}
              for _ in range(10)]
    submitted = api.call("POST", "/v1/batch", json={"operation": "markdown", "requests": items})
    assert submitted.status_code == 202, submitted.text
    job_id = submitted.json()["data"]["jobId"]
    assert wait_until_settled(api, job_id, give_up_s=600)["completed"] == 20
    results = all_results(api, job_id, 100)
    texts = [result["data"]["markdown"] for result in results]
    assert all(f"Signed in as {FORM_NAME}" in text for text in texts[:10]), texts[:10]
    assert all(f"Signed in as {SPA_NAME}" in text for text in texts[10:]), texts[10:]

    crawl = api.call("POST", "/v1/web/crawl", json={
        "url": form_site.url("/account"), "limit": 10, "sitemap": "skip", "formats": ["markdown"],
        "onlyMainContent": False, "profile": {"id": logged_in["form"]}})
    assert crawl.status_code == 202, crawl.text
    crawl_id = crawl.json()["data"]["jobId"]
    wait_until_settled(api, crawl_id, give_up_s=600)
    pages = [result["data"] for result in all_results(api, crawl_id, 100)]
    assert len(pages) == 10
    assert all(f"Signed in as {FORM_NAME}" in page["markdown"] for page in pages), pages


def _playwright_login(form_site: FormSite, spa_site: SpaSite) -> dict[str, Any]:
    """Both logins in a browser of this test's own (no service involved), and the storage state it keeps."""
    install = resolve_chromium()
    env: dict[str, str | float | bool] = {"PATH": os.environ["PATH"], **install.env}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(install.executable), env=env,
                                             args=["--no-zygote"])
        try:
            context = browser.new_context()
            page = context.new_page()
            for site in (form_site, spa_site):
                page.goto(site.url("/login"))
                page.fill("#user", USER)
                page.fill("#password", PASSWORD)
                with page.expect_navigation(url=site.url("/account")):
                    page.click("#submit")
            state: dict[str, Any] = dict(context.storage_state())
        finally:
            browser.close()
    return state


def test_a_state_made_by_playwright_elsewhere_works_the_same(
        api: LocalApi, form_site: FormSite, spa_site: SpaSite) -> None:
    state = _playwright_login(form_site, spa_site)
    # Two cookies for places the service may not reach: a private address and a name that resolves nowhere.
    foreign = [{**state["cookies"][0], "domain": domain, "name": "internal"}
               for domain in ("10.0.0.5", "wiki.corp.invalid")]
    made = new_profile(api, "imported")
    answer = api.call("PUT", f"/v1/profiles/{made['profileId']}/state",
                      json={**state, "cookies": state["cookies"] + foreign})
    assert answer.status_code == 200, answer.text
    data = answer.json()["data"]
    assert data["version"] == 2 and "2 cookie(s) or origin(s) were dropped" in data["warning"]
    assert data["origins"] == sorted(["127.0.9.1", spa_site.origin])
    assert "10.0.0.5" not in json.dumps(data)
    for site, name in ((form_site, FORM_NAME), (spa_site, SPA_NAME)):
        account = page_text(markdown(api, site.url("/account"), profile={"id": made["profileId"]}))
        assert f"Signed in as {name}" in account


def test_a_profile_the_caller_cannot_use_is_404_and_costs_nothing(
        api: LocalApi, form_site: FormSite, logged_in: dict[str, str], other_key: str) -> None:
    theirs = logged_in["form"]
    before = credits_left(api, other_key)
    assert_envelope_error(markdown(api, form_site.url("/account"), key=other_key, profile={"id": theirs}),
                          404, "NOT_FOUND")
    assert_envelope_error(api.call("GET", f"/v1/profiles/{theirs}", key=other_key), 404, "NOT_FOUND")
    assert_envelope_error(api.call("PUT", f"/v1/profiles/{theirs}/state", key=other_key,
                                   json={"cookies": [], "origins": []}), 404, "NOT_FOUND")
    batch = api.call("POST", "/v1/batch", key=other_key, json={
        "operation": "markdown", "requests": [{"url": form_site.url("/account"), "profile": {"id": theirs}}]})
    assert_envelope_error(batch, 404, "NOT_FOUND")
    crawl = api.call("POST", "/v1/web/crawl", key=other_key, json={
        "url": form_site.url("/account"), "limit": 5, "profile": {"id": theirs}})
    assert_envelope_error(crawl, 404, "NOT_FOUND")
    assert credits_left(api, other_key) == before
    assert theirs not in api.call("GET", "/v1/profiles", key=other_key).text

    gone = new_profile(api, "to delete")
    deleted = api.call("DELETE", f"/v1/profiles/{gone['profileId']}")
    assert deleted.status_code == 200 and deleted.json()["data"] == {"profileId": gone["profileId"],
                                                                     "deleted": True}
    mine_before = credits_left(api)
    assert_envelope_error(markdown(api, form_site.url("/account"), profile={"id": gone["profileId"]}),
                          404, "NOT_FOUND")
    assert_envelope_error(api.call("GET", f"/v1/profiles/{gone['profileId']}"), 404, "NOT_FOUND")
    assert credits_left(api) == mine_before


def test_bad_input_too_large_and_too_many(api: LocalApi) -> None:
    made = new_profile(api, "big")
    big = {"cookies": [], "origins": [{"origin": "http://127.0.9.1",
                                       "localStorage": [{"name": "blob", "value": "x" * (1024 * 1024)}]}]}
    assert_envelope_error(api.call("PUT", f"/v1/profiles/{made['profileId']}/state", json=big), 413,
                          "PAYLOAD_TOO_LARGE")
    renamed = api.call("PATCH", f"/v1/profiles/{made['profileId']}", json={"name": "renamed"})
    assert renamed.status_code == 200 and renamed.json()["data"]["name"] == "renamed"
    assert api.call("POST", "/v1/profiles", json={"name": ""}).status_code == 422
    with pytest.MonkeyPatch.context() as patch, stack_stores(api, patch):
        key, _ = api_keys.create_key("profiles-many", "k", remaining=10)
    for n in range(100):
        new_profile(api, f"p{n}", key=key)
    assert_envelope_error(api.call("POST", "/v1/profiles", json={"name": "p100"}, key=key), 409, "LIMIT_REACHED")
    listed = api.call("GET", "/v1/profiles", key=key).json()["data"]
    assert listed["total"] == 100 and len(listed["profiles"]) == 100


def test_two_saves_at_once_one_saves_and_the_other_is_warned(
        api: LocalApi, spa_site: SpaSite, logged_in: dict[str, str]) -> None:
    profile_id = logged_in["spa"]
    before = profile_of(api, profile_id)["version"]
    answers: dict[str, requests.Response] = {}

    def save(marker: str) -> Callable[[], None]:
        def run() -> None:
            answers[marker] = markdown(api, spa_site.url("/account"), waitTime=1500,
                                       addScriptTag=[{"content": f"localStorage.setItem('marker', '{marker}')"}],
                                       profile={"id": profile_id, "save": True})
        return run

    threads = [threading.Thread(target=save(marker)) for marker in ("A", "B")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    warned = [m for m, r in answers.items() if "was not saved" in r.json()["data"].get("warning", "")]
    assert all(r.status_code == 200 for r in answers.values()), [r.text for r in answers.values()]
    assert len(warned) == 1, [r.text for r in answers.values()]
    assert all(f"Signed in as {SPA_NAME}" in r.json()["data"]["markdown"] for r in answers.values())
    after = profile_of(api, profile_id)
    assert after["version"] == before + 1
    s3 = boto3.client("s3", endpoint_url=api.aws_endpoint, region_name="us-east-1",
                      aws_access_key_id="local", aws_secret_access_key="local")
    objects = s3.list_objects_v2(Bucket=LOCAL_BUCKET, Prefix="profiles/")["Contents"]
    (state_object,) = [o for o in objects if f"/{profile_id}/" in o["Key"]]
    kept = json.loads(s3.get_object(Bucket=LOCAL_BUCKET, Key=state_object["Key"])["Body"].read())
    (origin,) = kept["origins"]
    markers = [entry["value"] for entry in origin["localStorage"] if entry["name"] == "marker"]
    saved = ({"A", "B"} - set(warned)).pop()
    assert markers == [saved]  # the winner's state, whole


def test_the_secrets_never_show_and_states_are_encrypted(
        api: LocalApi, form_site: FormSite, spa_site: SpaSite, bodies: list[str]) -> None:
    secrets = [PASSWORD, *form_site.sessions, *spa_site.sessions]
    assert len(secrets) >= 5  # the password, and the sessions both sites issued to both logins
    log = "".join(api.output)
    assert log, "the stack logged nothing: nothing was checked"
    for secret in secrets:
        assert secret not in log
        assert not any(secret in body for body in bodies)
    s3 = boto3.client("s3", endpoint_url=api.aws_endpoint, region_name="us-east-1",
                      aws_access_key_id="local", aws_secret_access_key="local")
    objects = s3.list_objects_v2(Bucket=LOCAL_BUCKET, Prefix="profiles/")["Contents"]
    assert len(objects) >= 3
    for listed in objects:
        head = s3.head_object(Bucket=LOCAL_BUCKET, Key=listed["Key"])
        assert head["ServerSideEncryption"] == "aws:kms" and head["SSEKMSKeyId"]
