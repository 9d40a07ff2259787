"""Which page of an `auto` crawl renders a script-built navigation (site.navigation_renders), against moto's
DynamoDB: the first page to ask, for every worker that asks, once per crawl and name."""

from __future__ import annotations

import pytest

from tests.unit.test_site_crawl_submit import crawl_aws  # noqa: F401 - fixture
from webcapture.site import navigation_renders
from webcapture.site.navigation_renders import renders_navigation


@pytest.fixture
def fresh_worker(crawl_aws: str, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(navigation_renders, "_renderers", type(navigation_renders._renderers)())


def _another_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(navigation_renders, "_renderers", type(navigation_renders._renderers)())


def test_the_first_page_to_ask_renders_and_no_other(fresh_worker: None, monkeypatch: pytest.MonkeyPatch) -> None:
    assert renders_navigation("job-1", "menu-a", "http://docs.example/a.html")
    assert not renders_navigation("job-1", "menu-a", "http://docs.example/b.html")
    assert renders_navigation("job-1", "menu-a", "http://docs.example/a.html")  # asked again: still it
    _another_worker(monkeypatch)
    assert not renders_navigation("job-1", "menu-a", "http://docs.example/c.html")
    assert renders_navigation("job-1", "menu-a", "http://docs.example/a.html")


def test_each_navigation_and_each_crawl_has_its_own_page(fresh_worker: None) -> None:
    assert renders_navigation("job-1", "menu-a", "http://docs.example/a.html")
    assert renders_navigation("job-1", "menu-b", "http://docs.example/b.html")
    assert renders_navigation("job-2", "menu-a", "http://docs.example/c.html")


def test_a_worker_asks_the_table_once_per_navigation(fresh_worker: None, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    ask = navigation_renders._renderer
    monkeypatch.setattr(navigation_renders, "_renderer", lambda *args: asked.append(args[2]) or ask(*args))
    for page in ("a", "b", "c", "a"):
        renders_navigation("job-1", "menu-a", f"http://docs.example/{page}.html")
    assert asked == ["http://docs.example/a.html"]
