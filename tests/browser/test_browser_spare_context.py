"""The spare context (webcapture.browser.page.spare_context): made between requests, taken by the next request
with the same options, never carrying anything of an earlier request, and never made with a caller's
headers or credentials. The request's own context is closed after its answer."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import browser_pid, lifecycle, shutdown_browser
from webcapture.browser.launch import processes
from webcapture.browser.page.page_context import PageSetup
from webcapture.browser.page.spare_context import _Spare
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.models.page_control import PageControl
from webcapture.settings import get_settings


@pytest.fixture
def fresh_host() -> Iterator[None]:
    shutdown_browser()
    yield
    shutdown_browser()


def settle() -> None:
    """Wait until the worker has done what it does after an answer (closing, the spare)."""
    assert lifecycle.host().idle.wait(30)


def on_worker(job: Any) -> Any:
    return lifecycle.host().submit(job, wait_s=30)


def contexts() -> list[list[str]]:
    """The browser's contexts, as the URLs of their pages (read on the worker, which owns them)."""
    current = lifecycle.host()
    browser = current._browser  # what the worker keeps
    assert browser is not None
    urls: list[list[str]] = on_worker(lambda: [[page.url for page in each.pages] for each in browser.contexts])
    return urls


def page_of(loaded: LoadedPage) -> Page:
    return loaded.page


def spare_after_a_request(url: str, action: Callable[[LoadedPage], object] = page_of) -> _Spare:
    """Serve one request, wait for the worker to settle, and return the spare it made then."""
    with_loaded_page(url, 0, action)
    settle()
    spare = lifecycle.host().spare._spare  # what the worker keeps
    assert spare is not None
    return spare


def test_the_next_request_with_the_same_options_takes_the_spare(
    fixture_server: FixtureHttpServer, fresh_host: None
) -> None:
    url = fixture_server.url("/plain.html")
    spare = spare_after_a_request(url)
    # The request's context is closed; one spare is waiting, its page never navigated.
    assert contexts() == [["about:blank"]]
    second = with_loaded_page(url, 0, page_of)
    assert second is spare.page
    settle()
    assert contexts() == [["about:blank"]]  # the second request's context closed, a new spare made


def test_a_spare_carries_nothing_of_the_request_before(
    fixture_server: FixtureHttpServer, fresh_host: None
) -> None:
    url = fixture_server.url("/plain.html")

    def leave_state(loaded: LoadedPage) -> None:
        loaded.page.evaluate("() => { document.cookie = 'left=1'; localStorage.setItem('left', '1') }")

    def read_state(loaded: LoadedPage) -> tuple[Page, list[Any]]:
        return loaded.page, loaded.page.evaluate("() => [document.cookie, localStorage.getItem('left')]")

    # The spare made right after the request that left a cookie and storage serves the next one: clean.
    spare = spare_after_a_request(url, leave_state)
    page, state = with_loaded_page(url, 0, read_state)
    assert page is spare.page and state == ["", None]


def test_other_options_get_their_own_context(fixture_server: FixtureHttpServer, fresh_host: None) -> None:
    url = fixture_server.url("/plain.html")
    spare = spare_after_a_request(url)

    def viewport(loaded: LoadedPage) -> tuple[Page, Any]:
        return loaded.page, loaded.page.evaluate("() => [innerWidth, innerHeight]")

    page, size = with_loaded_page(url, 0, viewport, PageSetup(width=800, height=600))
    assert page is not spare.page and size == [800, 600]
    settle()
    # The spare that did not fit was closed; the new one has the last request's options.
    assert contexts() == [["about:blank"]]
    new_spare = lifecycle.host().spare._spare
    assert new_spare is not None and new_spare is not spare
    again, size = with_loaded_page(url, 0, viewport, PageSetup(width=800, height=600))
    assert again is new_spare.page and size == [800, 600]


def test_no_spare_keeps_a_callers_headers_or_credentials(
    fixture_server: FixtureHttpServer, fresh_host: None
) -> None:
    # Headers for every origin are the context's own option: such a context is never kept. (Headers for the
    # target's origin, the default, are added by the request's own route and never reach a context option.)
    url = fixture_server.url("/plain.html")
    control = PageControl.model_validate({"headers": {"X-Secret": "s3cret"}, "headersScope": "all"})
    with_loaded_page(url, 0, page_of, None, control)
    settle()
    assert contexts() == []
    assert lifecycle.host().spare._spare is None


def test_a_crashed_spare_is_not_used(fixture_server: FixtureHttpServer, fresh_host: None) -> None:
    url = fixture_server.url("/plain.html")
    spare = spare_after_a_request(url)

    # The spare's renderer dies while the worker is idle (the request's own context is closed already).
    browser = browser_pid()
    assert browser is not None
    # Chromium rewrites its children's command lines into one string.
    renderers = [pid for pid in processes.descendants(browser) if "--type=renderer" in " ".join(processes.cmdline(pid))]
    assert len(renderers) == 1
    os.kill(renderers[0], signal.SIGKILL)
    # The next request notices the dead spare and makes its own context.
    page = with_loaded_page(url, 0, page_of)
    assert page is not spare.page and page.url == url


def test_turned_off_no_context_is_left_after_the_answer(
    fixture_server: FixtureHttpServer, fresh_host: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBCAPTURE_SPARE_CONTEXT", "0")
    get_settings.cache_clear()
    try:
        with_loaded_page(fixture_server.url("/plain.html"), 0, page_of)
        settle()
        assert contexts() == []
    finally:
        monkeypatch.delenv("WEBCAPTURE_SPARE_CONTEXT")
        get_settings.cache_clear()
