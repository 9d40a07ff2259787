"""Money and time over the local API: a request the gateway answered with its own 504 is never charged,
and a key's in-flight limit refuses the extra request with 429 and takes no credit for it.

Its own local API: a 12 s gateway timeout (the functions derive their deadline from the same setting) so a
queue of slow captures outlives the gateway in seconds instead of half a minute.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.support.api_answers import assert_envelope_error
from tests.support.local_api import LocalApi, start_local_api
from tests.support.slow_site import SlowSite, slow_site
from tests.support.stack_stores import stack_stores
from webcapture import aws
from webcapture.auth import api_keys
from webcapture.settings import get_settings

GATEWAY_TIMEOUT_MS = 12_000
SLOW_PAGE_MS = 2_000


@pytest.fixture(scope="module")
def limits_api() -> Iterator[LocalApi]:
    api = start_local_api({"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
                           "WEBCAPTURE_GATEWAY_TIMEOUT_MS": str(GATEWAY_TIMEOUT_MS),
                           "WEBCAPTURE_REQUEST_BUDGET_MS": "20000"},
                          # One container per function: ten captures queue in it, as they would in a Lambda
                          # whose concurrency is used up, and the later ones outlive the gateway.
                          extra_args=["--max-containers", "1"],
                          prewarm=("AuthorizerFunction", "ScreenshotFunction", "LinksFunction"))
    yield api
    api.stop()


@pytest.fixture(scope="module")
def site() -> Iterator[SlowSite]:
    with slow_site() as server:
        yield server


@pytest.fixture
def limits_aws(limits_api: LocalApi, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalApi]:
    """This process's webcapture stores talk to that stack's moto server (to create and read keys)."""
    with stack_stores(limits_api, monkeypatch):
        yield limits_api


def key_item(record: api_keys.ApiKeyRecord) -> dict[str, Any]:
    table = aws.dynamodb_table(get_settings().api_keys_table)
    return dict(table.get_item(Key={"keyHash": record.key_hash}, ConsistentRead=True)["Item"])


def wait_until_idle(record: api_keys.ApiKeyRecord) -> None:
    """Until no request of the key is in flight (every running invocation holds a lease until it ends)."""
    give_up = time.monotonic() + 60
    while key_item(record).get("leases"):
        assert time.monotonic() < give_up, "requests still in flight after a minute"
        time.sleep(0.2)


def warm(api: LocalApi, key: str, path: str, url: str) -> None:
    """One request that succeeds, so the container, its browser and the authorizer are all warm (a cold
    start on a busy machine can outlast the authorizer's own 5 s: that one is tried again)."""
    for _attempt in range(3):
        answer = api.call("POST", path, key=key, json={"url": url})
        if answer.status_code == 200:
            return
    raise AssertionError(f"{path} never answered 200: {answer.status_code} {answer.text}")


def screenshot(api: LocalApi, key: str, url: str) -> requests.Response:
    return api.call("POST", "/v1/web/screenshot", key=key,
                    json={"url": url, "screenshotOptions": {"fullPage": False}})


def test_ten_concurrent_slow_screenshots_charge_only_the_200s(limits_aws: LocalApi, site: SlowSite) -> None:
    key, record = api_keys.create_key("patient", "k", remaining=100, max_concurrency=20)
    warm(limits_aws, key, "/v1/web/screenshot", site.url(0))
    before = int(key_item(record)["remaining"])
    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(lambda _: screenshot(limits_aws, key, site.url(SLOW_PAGE_MS)), range(10)))
    statuses = [answer.status_code for answer in answers]
    # One container serves them one by one: the first few in time, the rest past the gateway's timeout.
    assert statuses.count(200) >= 1 and statuses.count(504) >= 1 and set(statuses) == {200, 504}
    for answer in answers:
        if answer.status_code == 504:
            assert_envelope_error(answer, 504, "NAVIGATION_TIMEOUT")
    wait_until_idle(record)
    spent = before - int(key_item(record)["remaining"])
    assert spent == statuses.count(200)
    assert not key_item(record).get("chargedRequests")  # no charge marker left behind


def test_in_flight_limit_refuses_the_extra_request_without_charging_it(
    limits_aws: LocalApi, site: SlowSite
) -> None:
    # One container per function here, so two functions give two requests in flight.
    key, record = api_keys.create_key("busy", "k", remaining=10, max_concurrency=1)
    warm(limits_aws, key, "/v1/web/screenshot", site.url(0))
    warm(limits_aws, key, "/v1/web/links", site.url(0))
    before = int(key_item(record)["remaining"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        shot = pool.submit(screenshot, limits_aws, key, site.url(SLOW_PAGE_MS))
        walk = pool.submit(limits_aws.call, "POST", "/v1/web/links", key=key,
                           json={"url": site.url(SLOW_PAGE_MS)})
        answers = [shot.result(), walk.result()]
    refused = [answer for answer in answers if answer.status_code == 429]
    assert len(refused) == 1 and sum(answer.status_code == 200 for answer in answers) == 1
    assert_envelope_error(refused[0], 429, "CONCURRENCY_LIMIT_EXCEEDED")
    assert int(refused[0].headers["Retry-After"]) >= 1
    wait_until_idle(record)
    assert key_item(record)["remaining"] == before - 1  # the one that ran; nothing for the one refused
