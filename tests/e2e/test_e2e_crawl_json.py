"""A crawl's json format end to end: each page asked to the AI model as ai-extract asks it (the session's
stack, with the real openai client against a loopback stand-in for the model), at 6 credits a page."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.jobs_client import all_results, credits_left, wait_until_settled
from tests.support.local_api import LocalApi
from tests.support.sample_site import SiteServer, _html

ADDRESS = "127.0.8.6"


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    routes = {"/": _html("Shop", [("/kettle.html", "Kettle")]),
              "/kettle.html": _html("Kettle", [], extra="<p>Price: 42 EUR</p>")}
    server = SiteServer(routes, address=ADDRESS)
    yield f"http://{ADDRESS}"
    server.stop()


def test_each_page_is_extracted_and_costs_six(local_api: LocalApi, fake_openai: FakeOpenAI, shop: str) -> None:
    fake_openai.requests.clear()
    fake_openai.script(json_completion({"found": True}), json_completion({"found": True}))
    before = credits_left(local_api)
    answer = local_api.call("POST", "/v1/web/crawl", json={
        "url": shop + "/", "limit": 5, "maxDepth": 1, "sitemap": "skip", "formats": ["json"],
        "extract": {"prompt": "the product and its price"}})
    assert answer.status_code == 202, answer.text
    assert answer.json()["creditsCost"] == 30  # limit x (1 + 5)
    job_id = answer.json()["data"]["jobId"]
    settled = wait_until_settled(local_api, job_id, give_up_s=300)
    results = all_results(local_api, job_id, 10)
    assert sorted(r["data"]["url"] for r in results) == [shop + "/", shop + "/kettle.html"]
    assert all(r["data"]["json"] == {"found": True} for r in results)
    assert settled["creditsCost"] == 12 and credits_left(local_api) == before - 12
    sent = " ".join(json.dumps(request.body) for request in fake_openai.requests)
    assert "the product and its price" in sent and "Price: 42 EUR" in sent
