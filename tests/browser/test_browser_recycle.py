"""Recycling: after WEBCAPTURE_BROWSER_RECYCLE_AFTER requests the driver and the browser are started afresh,
between requests, leaving no process of the old ones behind (not even a zombie)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import browser_pid, lifecycle, shutdown_browser, take_screenshot
from webcapture.browser.launch import processes
from webcapture.models.requests import ScreenshotRequest
from webcapture.settings import Settings, get_settings


def shot(url: str) -> int:
    return take_screenshot(
        ScreenshotRequest.model_validate({"url": url, "screenshotOptions": {"fullPage": False}})
    ).width


def driver_pids() -> list[int]:
    """Playwright's driver: the Node process this one started (`... run-driver`)."""
    return [pid for pid in processes.children(os.getpid()) if "run-driver" in processes.cmdline(pid)]


def idle() -> None:
    """Wait until the worker has finished whatever it does between requests (a recycle)."""
    lifecycle.host().submit(lambda: None, wait_s=60)


def zombie_children() -> list[int]:
    return [pid for pid in processes.children(os.getpid()) if processes.state(pid) == "Z"]


@pytest.fixture
def recycle_after_3(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    shutdown_browser()  # counting starts with a fresh host
    monkeypatch.setenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER", "3")
    get_settings.cache_clear()
    yield
    shutdown_browser()
    monkeypatch.delenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER")
    get_settings.cache_clear()


def test_after_n_requests_the_driver_and_browser_are_new_and_the_old_ones_gone(
    fixture_server: FixtureHttpServer, recycle_after_3: None
) -> None:
    url = fixture_server.url("/plain.html")
    shot(url)
    idle()
    old_browser, old_drivers = browser_pid(), driver_pids()
    assert old_browser is not None and len(old_drivers) == 1
    old_tree = [old_browser, *processes.descendants(old_browser), *old_drivers]
    shot(url)
    idle()
    assert browser_pid() == old_browser  # 2 of 3: still the same
    shot(url)  # the third: the worker recycles right after answering it
    idle()
    new_browser, new_drivers = browser_pid(), driver_pids()
    assert new_browser is not None and new_browser != old_browser
    assert len(new_drivers) == 1 and new_drivers != old_drivers
    # The old driver, browser and the browser's children are gone and reaped.
    assert [pid for pid in old_tree if processes.state(pid) is not None] == []
    assert zombie_children() == []
    assert lifecycle.host().recycles == 1
    assert shot(url) == 1280  # the new browser serves
    assert browser_pid() == new_browser


def test_concurrent_callers_all_succeed_across_a_recycle(
    fixture_server: FixtureHttpServer, recycle_after_3: None
) -> None:
    url = fixture_server.url("/plain.html")
    results: list[int] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results.append(shot(url))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    idle()
    assert errors == []
    assert results == [1280] * 7
    assert lifecycle.host().recycles == 2  # after the 3rd and the 6th request
    assert len(driver_pids()) == 1
    assert zombie_children() == []


def test_zero_turns_recycling_off(fixture_server: FixtureHttpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    shutdown_browser()
    monkeypatch.setenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER", "0")
    get_settings.cache_clear()
    try:
        url = fixture_server.url("/plain.html")
        shot(url)
        first = browser_pid()
        for _ in range(3):
            shot(url)
        idle()
        assert browser_pid() == first and lifecycle.host().recycles == 0
    finally:
        shutdown_browser()
        monkeypatch.delenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER")
        get_settings.cache_clear()


@pytest.mark.parametrize("raw", ["-1", "ten", "2.5", " 1e3"])
def test_the_recycle_count_must_be_a_whole_number(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER", raw)
    with pytest.raises(ValueError, match="WEBCAPTURE_BROWSER_RECYCLE_AFTER must be a whole number"):
        Settings.from_env()


def test_the_recycle_count_defaults_to_500_and_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER", raising=False)
    assert Settings.from_env().browser_recycle_after == 500
    monkeypatch.setenv("WEBCAPTURE_BROWSER_RECYCLE_AFTER", " 40 ")
    assert Settings.from_env().browser_recycle_after == 40
