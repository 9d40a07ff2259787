"""A crawl's json format in process (moto, the crawl worker fed from the queue, a loopback site read by the
http engine, the real openai client against a loopback stand-in for the model): a page whose model answered
off the schema, twice, fails and keeps its credits, as POST /v1/web/ai-extract does; a page whose provider
failed is refunded."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.fake_openai import FakeOpenAI, error, json_completion
from tests.support.fast_pages import FastPageServer
from tests.unit.test_crawl_changes import _drain
from tests.unit.test_site_crawl_submit import _caller, _remaining, crawl_aws  # noqa: F401 - fixture
from webcapture.jobs import job_store
from webcapture.jobs.job_view import job_data
from webcapture.settings import get_settings
from webcapture.site.crawl_submit import submit_crawl

PAGE_COST = 6  # the page (1) and its ai-extract (5)
NEVER_MATCHED = {"type": "json_schema", "schema": {
    "type": "object", "properties": {"a": {"const": "never-produced"}}, "required": ["a"]}}


@pytest.fixture
def model(crawl_aws: str, settings_env: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:  # noqa: F811
    with FakeOpenAI() as server:
        settings_env.setenv("OPENAI_BASE_URL", server.base_url)
        settings_env.setenv("OPENAI_API_KEY", "sk-unit-test-key")
        get_settings.cache_clear()
        yield server


@pytest.fixture
def site(crawl_aws: str) -> Iterator[FastPageServer]:  # noqa: F811
    server = FastPageServer("127.0.0.1")
    server.pages = {"/": (b"<html><title>Kettle</title><body><main><h1>Kettle</h1><p>Price: 42 EUR</p>"
                          b"</main></body></html>", "text/html", '"v1"')}
    yield server
    server.stop()


def _one_page_crawl(site: FastPageServer, crawl_aws: str, remaining: int) -> tuple[dict[str, Any], int]:  # noqa: F811
    caller, key_hash = _caller(remaining)
    submitted = submit_crawl(caller, {
        "url": f"http://127.0.0.1:{site.port}/", "limit": 1, "engine": "http", "sitemap": "skip",
        "respectRobotsTxt": False, "formats": ["json"],
        "extract": {"prompt": "the product", "response_format": NEVER_MATCHED}}, None)
    _drain(crawl_aws)
    job = job_store.get_job(submitted.job.job_id)
    assert job is not None
    return job_data(job, limit="10"), remaining - _remaining(key_hash)


def test_a_page_the_model_answered_off_the_schema_is_charged_and_says_so(
        model: FakeOpenAI, site: FastPageServer, crawl_aws: str) -> None:  # noqa: F811
    model.script(json_completion({"a": "something"}), json_completion({"a": "something else"}))
    job, spent = _one_page_crawl(site, crawl_aws, 100)
    assert len(model.requests) == 2
    (result,) = job["results"]
    assert (result["status"], result["error"]["code"]) == ("failed", "AI_PROVIDER_ERROR")
    assert "charged" in result["error"]["message"] and result["error"]["url"].endswith("/")
    assert (job["status"], job["creditsCost"], spent) == ("failed", PAGE_COST, PAGE_COST)


def test_a_page_whose_provider_failed_is_refunded(model: FakeOpenAI, site: FastPageServer,
                                                  crawl_aws: str) -> None:  # noqa: F811
    model.script(error(500, "upstream exploded"))
    job, spent = _one_page_crawl(site, crawl_aws, 100)
    (result,) = job["results"]
    assert (result["status"], result["error"]["code"]) == ("failed", "AI_PROVIDER_ERROR")
    assert "charged" not in result["error"]["message"]
    assert (job["creditsCost"], spent) == (0, 0)
