"""Browser lifecycle: reuse, relaunch after a crash, the time budget, navigation errors, egress, and no
leftovers (scratch folders, /tmp entries, zombie processes)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture import egress
from webcapture.browser import (
    browser_pid,
    collect_links,
    lifecycle,
    load_page,
    shutdown_browser,
    take_screenshot,
)
from webcapture.browser.launch import chromium_pack, processes
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.errors import NavigationFailed, NavigationTimeout, UrlNotAllowed
from webcapture.models.requests import LinksRequest, ScreenshotRequest
from webcapture.settings import get_settings


def shot(url: str) -> int:
    return take_screenshot(
        ScreenshotRequest.model_validate({"url": url, "screenshotOptions": {"fullPage": False}})
    ).width


def link_count(url: str, wait_time: int = 0) -> int:
    return collect_links(LinksRequest.model_validate({"url": url, "waitTime": wait_time})).total_links


@pytest.fixture
def budget_ms(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    monkeypatch.setenv("WEBCAPTURE_REQUEST_BUDGET_MS", "1500")
    get_settings.cache_clear()
    yield 1500
    monkeypatch.delenv("WEBCAPTURE_REQUEST_BUDGET_MS")
    get_settings.cache_clear()


def zombie_children() -> list[int]:
    return [pid for pid in processes.children(os.getpid()) if processes.state(pid) == "Z"]


def open_contexts() -> int:
    host = lifecycle.host()

    def count() -> int:
        # The spare made between requests for the next one is not a request's context.
        assert host._browser is not None
        spare = host.spare._spare
        return len([c for c in host._browser.contexts if spare is None or c is not spare.context])

    return host.submit(count)


# -- reuse and contexts -----------------------------------------------------------------------------------


def test_one_browser_serves_many_requests_with_a_fresh_context_each(
    fixture_server: FixtureHttpServer,
) -> None:
    shot(fixture_server.url("/plain.html"))
    pid = browser_pid()
    assert pid is not None
    for path in ("/tall.html", "/missing", "/links.html"):
        shot(fixture_server.url(path))
        assert browser_pid() == pid  # reused, not relaunched
        assert open_contexts() == 0  # each request's context is closed
    with pytest.raises(NavigationFailed):
        shot(f"http://127.0.0.1:{closed_port()}/")
    assert open_contexts() == 0  # closed on failure too
    assert zombie_children() == []


def test_the_browser_starts_with_the_vulkan_variable_it_would_add_on_its_gpu_thread(
    fixture_server: FixtureHttpServer,
) -> None:
    # Chromium sets VK_ICD_FILENAMES on its GPU thread while other threads call getenv; present from exec,
    # that setenv replaces the entry in place instead of moving glibc's environ under a reader (the launch
    # crash in getenv). /proc shows the environment the browser was started with.
    shot(fixture_server.url("/plain.html"))
    pid = browser_pid()
    assert pid is not None
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    started_with = dict(entry.decode().split("=", 1) for entry in raw if b"=" in entry)
    icd = Path(started_with["VK_ICD_FILENAMES"])
    assert icd.name == "vk_swiftshader_icd.json" and icd.is_file()
    assert icd.parent == Path(processes.cmdline(pid)[0]).parent  # beside the binary, as Chromium names it


def test_callers_on_many_threads_share_the_browser(fixture_server: FixtureHttpServer) -> None:
    # The local API serves requests on threads; Playwright's sync API is bound to one thread.
    results: list[int] = []
    errors: list[BaseException] = []

    def call() -> None:
        try:
            results.append(link_count(fixture_server.url("/links.html", host="localhost")))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert results == [18] * 4


# -- crashes ----------------------------------------------------------------------------------------------


def test_a_killed_browser_is_relaunched_and_the_next_request_succeeds(
    fixture_server: FixtureHttpServer,
) -> None:
    shot(fixture_server.url("/plain.html"))
    old = browser_pid()
    assert old is not None
    tree = [old, *processes.descendants(old)]
    assert len(tree) > 1  # the browser and its renderer/utility processes

    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 5
    while processes.is_alive(old) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not processes.is_alive(old)

    assert shot(fixture_server.url("/tall.html")) == 1280  # not failed: relaunched
    new = browser_pid()
    assert new is not None and new != old
    # The dead browser's orphans were killed and reaped: nothing of it lingers, not even as a zombie.
    assert [pid for pid in tree if processes.state(pid) is not None] == []
    assert zombie_children() == []


def test_a_browser_that_dies_mid_request_is_relaunched_and_the_request_retried(
    fixture_server: FixtureHttpServer,
) -> None:
    shot(fixture_server.url("/plain.html"))
    old = browser_pid()
    assert old is not None
    killer = threading.Timer(0.5, os.kill, (old, signal.SIGKILL))  # while the request waits on the page
    killer.start()
    try:
        assert link_count(fixture_server.url("/late.html"), wait_time=1500) == 0
    finally:
        killer.cancel()
    assert not processes.is_alive(old)
    assert browser_pid() not in (None, old)
    assert zombie_children() == []


def test_a_tab_whose_renderer_crashes_is_a_navigation_failure_and_the_browser_lives_on(
    fixture_server: FixtureHttpServer,
) -> None:
    shot(fixture_server.url("/plain.html"))
    pid = browser_pid()

    def crash_then_read(loaded: LoadedPage) -> str:
        # What an out-of-memory renderer looks like from here: the tab's process is gone mid-work.
        loaded.page.context.new_cdp_session(loaded.page).send("Page.crash")
        return loaded.page.title()

    with pytest.raises(NavigationFailed, match="crashed the browser tab"):
        with_loaded_page(fixture_server.url("/plain.html"), 0, crash_then_read)
    # Only the tab died: the same browser serves the next request.
    assert shot(fixture_server.url("/plain.html")) == 1280
    assert browser_pid() == pid


# -- the time budget --------------------------------------------------------------------------------------


def test_a_page_that_never_loads_times_out_within_the_budget(
    fixture_server: FixtureHttpServer, budget_ms: int
) -> None:
    started = time.monotonic()
    with pytest.raises(NavigationTimeout, match="1500 ms"):
        shot(fixture_server.url("/hang"))
    elapsed = time.monotonic() - started
    # Stopped by the 1.5 s budget: not before it, and nowhere near the 25 s default or the 120 s hang.
    assert budget_ms / 1000 - 0.1 <= elapsed < budget_ms / 1000 + 5.0
    assert open_contexts() == 0
    assert link_count(fixture_server.url("/links.html", host="localhost")) == 18  # the browser is fine


def test_a_page_busy_after_load_is_stopped_by_the_watchdog(
    fixture_server: FixtureHttpServer, budget_ms: int
) -> None:
    # busy.html loads, then its main thread spins: evaluate has no timeout of its own, so only the watchdog
    # ends the request, by killing the page's renderer: the browser lives on.
    shot(fixture_server.url("/plain.html"))
    before = browser_pid()
    assert before is not None
    started = time.monotonic()
    with pytest.raises(NavigationTimeout):
        link_count(fixture_server.url("/busy.html"))
    elapsed = time.monotonic() - started
    assert elapsed < budget_ms / 1000 + 1.0 + 5.0  # budget + watchdog grace, far below the 25 s default
    assert processes.renderers(before) == []  # nothing of the page is left
    assert link_count(fixture_server.url("/links.html", host="localhost")) == 18
    assert browser_pid() == before
    assert zombie_children() == []


def test_the_whole_browser_is_killed_when_killing_the_page_does_not_free_the_call(
    fixture_server: FixtureHttpServer, budget_ms: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The watchdog's harsher step, for a call that stays blocked with the page gone (here: a renderer kill
    # that does nothing).
    shot(fixture_server.url("/plain.html"))
    before = browser_pid()
    with monkeypatch.context() as patched, pytest.raises(NavigationTimeout):
        patched.setattr(lifecycle.BrowserHost, "kill_pages", lambda self: None)
        link_count(fixture_server.url("/busy.html"))
    assert link_count(fixture_server.url("/links.html", host="localhost")) == 18
    assert browser_pid() != before
    assert zombie_children() == []


def test_wait_time_longer_than_the_budget_fails_at_once(
    fixture_server: FixtureHttpServer, budget_ms: int
) -> None:
    started = time.monotonic()
    with pytest.raises(NavigationTimeout):
        link_count(fixture_server.url("/plain.html"), wait_time=3000)
    assert time.monotonic() - started < 3.0  # it did not sit through the wait it could never finish


# -- navigation errors and egress -------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_network_error_is_navigation_failed_with_the_error(fixture_server: FixtureHttpServer) -> None:
    with pytest.raises(NavigationFailed, match=r"net::ERR_[A-Z_]+"):
        shot(f"http://127.0.0.1:{closed_port()}/")


def test_the_egress_check_comes_before_any_browser_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(url: str) -> None:
        raise UrlNotAllowed("refused for the test")

    def no_browser() -> None:
        raise AssertionError("the browser was used for a refused target")

    monkeypatch.setattr(egress, "check_target", refuse)
    monkeypatch.setattr(lifecycle, "host", no_browser)
    monkeypatch.setattr("webcapture.browser.page_session.host", no_browser)
    with pytest.raises(UrlNotAllowed):
        shot("http://203.0.113.9/")
    with pytest.raises(UrlNotAllowed):
        load_page("http://203.0.113.9/", 0)


@pytest.mark.parametrize("target", ["http://10.1.2.3/", "http://169.254.169.254/latest/meta-data/"])
def test_a_redirect_to_a_refused_address_is_url_not_allowed(
    fixture_server: FixtureHttpServer, target: str
) -> None:
    # The fixture (allowed) redirects to a private or metadata address; the egress proxy refuses that hop.
    with pytest.raises(UrlNotAllowed, match="redirected to"):
        shot(fixture_server.url(f"/redirect-to?url={target}"))


# -- page load for the AI extraction ----------------------------------------------------------------------


def test_load_page_returns_the_rendered_dom(fixture_server: FixtureHttpServer) -> None:
    snapshot = load_page(fixture_server.url("/redirect/301"), 0)
    assert snapshot.title == "Plain page"
    assert snapshot.status_code == 200
    assert snapshot.final_url == fixture_server.url("/plain.html?via=redirect")
    assert '<span id="by-script">by script</span>' in snapshot.html  # after scripts ran
    missing = load_page(fixture_server.url("/missing"), 0)
    assert (missing.status_code, missing.title) == (404, "Not found")


# -- leftovers --------------------------------------------------------------------------------------------

CHROMIUM_TEMP_NAMES = ("playwright", ".org.chromium", "chromium", "crashpad", ".com.google", "core")


def chromium_like(names: set[str]) -> set[str]:
    return {name for name in names if any(part in name.lower() for part in CHROMIUM_TEMP_NAMES)}


def test_nothing_is_left_behind(
    fixture_server: FixtureHttpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on Lambda, where the cache dir is /tmp: after captures and shutdown, only the unpacked browser
    remains there; nothing lands in the real /tmp; stale scratch of a dead process is cleared."""
    shutdown_browser()  # the next launch uses the cache dir set below
    install = chromium_pack.resolve_chromium()
    cache = tmp_path / "lambda-tmp"
    built = install.executable.parent
    # Share the already unpacked build (hard links) instead of unpacking 220 MB again.
    try:
        shutil.copytree(built, cache / built.name, copy_function=os.link)
    except OSError:
        shutil.rmtree(cache, ignore_errors=True)
    stale = cache / "browser-scratch" / "999999999-1"
    (stale / "playwright_chromiumdev_profile-x").mkdir(parents=True)
    monkeypatch.setenv("WEBCAPTURE_CACHE_DIR", str(cache))
    get_settings.cache_clear()
    system_tmp_before = chromium_like(set(os.listdir("/tmp")))
    try:
        assert shot(fixture_server.url("/cjk.html")) == 1280
        assert link_count(fixture_server.url("/links.html", host="localhost")) == 18
        pid = browser_pid()
        assert pid is not None
        scratch = cache / "browser-scratch" / processes.scratch_name(os.getpid())
        # The profile and Chromium's temporary files live in our scratch folder, not in /tmp.
        profile = [arg for arg in processes.cmdline(pid) if arg.startswith("--user-data-dir=")]
        assert profile and profile[0].startswith(f"--user-data-dir={scratch}/")
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        assert f"TMPDIR={scratch}".encode() in environ and f"HOME={scratch}".encode() in environ
        assert not any(
            entry.startswith(b"AWS_SECRET_ACCESS_KEY") for entry in environ
        )  # credentials stay out
        assert not stale.exists()  # a dead process's scratch is cleared at launch
    finally:
        shutdown_browser()
        get_settings.cache_clear()
    # Only the unpacked build (and its lock file, if this run unpacked it) stays: it is the cache.
    assert {entry.name for entry in cache.iterdir()} - {f"{built.name}.lock"} == {
        built.name,
        "browser-scratch",
    }
    assert list((cache / "browser-scratch").iterdir()) == []
    assert chromium_like(set(os.listdir("/tmp"))) - system_tmp_before == set()
    assert zombie_children() == []
