"""One browser per warm container: launched on first use, reused by every later invocation, relaunched when
it has died, and shut down with nothing left behind.

Playwright's sync API binds its objects to the thread that started it, and the local API server (and tests)
call in from several threads, so all browser work runs on one dedicated worker thread; callers hand it a
job and wait. On Lambda one request at a time reaches a container, so this costs nothing there.

The Playwright driver and the browser get a private scratch folder as TMPDIR and HOME
(<cache_dir>/browser-scratch/<pid>-<start time>): Playwright makes its profile and artifacts folders
there, Chromium its temporary files. It is deleted on shutdown, and a later process deletes the folders of
dead ones, so /tmp (Lambda's cache_dir) does not fill up across runtime restarts.

Recycling: Playwright's driver (Node) grows across many contexts (microsoft/playwright#6319; measured here:
+42% from 1,000 to 3,000 screenshots) and Chromium slowly with it. So after every
settings.browser_recycle_after requests the worker stops the driver (which ends the browser), reaps both,
empties the scratch folder and starts them again. It does so on the worker thread right after the request
that reached the count has been handed its result, so no request is ever cut short by it; a request queued
meanwhile waits for the new browser, within its own budget, as it would for any earlier request.

A failed request's page may still run: a timed-out page with 500 workers looping kept its renderer at two
cores for 15-25 s after a graceful close, and the next capture in the container took 10-26 s. So before a
failed request answers, the worker kills the page's renderers, closes its context and checks that the
browser is idle; a browser that will not settle is recycled once the answer is out (`clear_failed_page`).
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import queue
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from webcapture import egress
from webcapture.browser.budget import Deadline
from webcapture.browser.launch import processes
from webcapture.browser.launch.chromium_pack import ChromiumInstall, resolve_chromium
from webcapture.browser.launch.launch_flags import LAMBDA_FLAGS
from webcapture.browser.launch.node_runtime import ensure_playwright_node
from webcapture.browser.page.page_context import close_quietly
from webcapture.browser.page.spare_context import SpareContext
from webcapture.settings import get_settings

log = logging.getLogger(__name__)

T = TypeVar("T")

# Inherited by the browser; everything else (credentials above all) stays out of its environment.
_PASSED_ENV = ("PATH", "LANG", "LC_ALL", "TZ")
# Guards the container's one BrowserHost (`host()`): made, abandoned and shut down from any thread.
_host_lock = threading.Lock()
# After a failed request: how long killed renderers get to be gone; then the browser (and the driver) are
# looked at every _IDLE_LOOK_S until _QUIET_LOOKS looks in a row find at most one of their threads runnable,
# for up to _SETTLE_S (or what the request can spare: page_session). Right after the kill the browser is
# busy for a while, taking in the renderers' deaths (500 workers' worth: about 0.2 s of CPU, seconds on a
# busy machine). The failed request answers after this; if the browser is still busy then, the wait goes on
# after the answer (recycling would cost a launch, longer still).
_RENDERER_EXIT_S = 1.0
_IDLE_LOOK_S = 0.01
_QUIET_LOOKS = 3
_SETTLE_S = 0.5
# Once the answer is out, how much longer the browser may take to settle before it counts as never settling.
_SETTLE_LATER_S = 10.0


class BrowserHost:
    """Owns the Playwright driver and the browser. Every method but `submit`, `warm_up`, `kill_pages` and
    `kill_browser` runs on the worker thread."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._work, name="webcapture-browser", daemon=True)
        self._thread.start()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._install: ChromiumInstall | None = None
        self._scratch: Path | None = None
        self.pid: int | None = None
        # Requests served by the current driver and browser, and how often both were started afresh.
        self.uses = 0
        self.recycles = 0
        # When each start-up step finished (time.monotonic(), a clock shared by all processes): for the
        # cold-start benchmark (scripts/bench_cold.py) and the log.
        self.milestones: dict[str, float] = {}
        # The next request's context and page, made between requests (webcapture.browser.page.spare_context),
        # and what is left to do once a request has its answer (closing its context).
        self.spare = SpareContext()
        self._after_answer: list[Callable[[], None]] = []
        # Set while the worker has nothing to do: the steps after the last answer are done (tests wait on it).
        self.idle = threading.Event()

    # -- any thread --------------------------------------------------------------------------------------

    def submit(self, job: Callable[[], T], *, wait_s: float | None = None) -> T:
        """Run job on the worker thread and return its result (or raise its exception)."""
        if threading.current_thread() is self._thread:
            return job()
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future.result(timeout=wait_s)

    def kill_pages(self) -> None:
        """Kill the browser's renderers at once: the pages of the request in hand (one at a time runs; the
        spare is made between requests), their frames and workers. The browser lives on, and a call blocked
        on a page fails as the page crashes. Safe from any thread: it only sends signals."""
        pid, scratch = self.pid, self._scratch
        if pid is not None and scratch is not None and processes.is_browser(pid, scratch):
            processes.kill(processes.renderers(pid))

    def kill_browser(self) -> None:
        """Kill the browser and its processes now. Safe from any thread: it only sends signals; the worker
        notices the dead browser on its next call and reaps what is left."""
        pid, scratch = self.pid, self._scratch
        if pid is not None and scratch is not None and processes.is_browser(pid, scratch):
            processes.kill_tree(pid)

    def stop_worker(self) -> None:
        self._jobs.put(None)

    # -- worker thread -----------------------------------------------------------------------------------

    def _work(self) -> None:
        while (item := self._jobs.get()) is not None:
            job, future = item
            self.idle.clear()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(job())
            except BaseException as exc:
                future.set_exception(exc)
            # Between jobs: the caller already has its result, the next job has not begun.
            self._between_jobs()

    def after_answer(self, step: Callable[[], None]) -> None:
        """Run step on the worker once the current job's caller has its result (worker thread): work the
        answer need not wait for, such as closing the request's context."""
        self._after_answer.append(step)

    def _between_jobs(self) -> None:
        steps, self._after_answer = self._after_answer, []
        for step in steps:
            try:
                step()
            except Exception:
                log.exception("a step after the answer failed")
        self._recycle_if_due()
        # A spare is made only while no request waits: one that is queued must not wait for it.
        browser = self._browser
        if get_settings().spare_context and self._jobs.empty() and browser is not None and self._is_healthy():
            self.spare.prepare(browser)
        if self._jobs.empty():
            self.idle.set()

    def clear_failed_page(self, context: BrowserContext, settle_s: float = _SETTLE_S) -> None:
        """After a request failed (timed out, crashed, or anything else), before it answers (worker thread):
        nothing of its page runs on. Its renderers are killed before the context is closed, as a renderer
        stuck in a loop does not act on a graceful close (closing took 11 s on the 500-worker page); then
        the browser must be idle. This is done before the answer because on Lambda nothing runs between
        invocations: work left for after the answer would run at the next request's thaw, in its time.
        A browser that died, or that will not settle, is started afresh once the caller has its answer."""
        if context.browser is not self._browser:
            # A browser that died during the request and was relaunched for its retry: the page died with it.
            close_quietly(context)
            return
        self.spare.discard()
        pid = self.pid
        if self._browser is None or pid is None or not self._is_healthy():
            close_quietly(context)
            self.after_answer(self._relaunch_if_dead)
            return
        killed = processes.renderers(pid)
        processes.kill(killed)
        close_quietly(context)
        if not processes.wait_gone(killed, wait_s=_RENDERER_EXIT_S):
            self.after_answer(lambda: self._recycle_now(f"renderers {killed} outlived SIGKILL"))
            return
        # The driver too: it takes in the page's events (one per worker, say).
        watched = [pid, *processes.descendants(pid), *([parent] if (parent := processes.parent(pid)) else [])]
        busy = processes.settle_idle(
            watched, quiet_looks=_QUIET_LOOKS, look_s=_IDLE_LOOK_S, within_s=settle_s)
        if busy > 1:
            # Still taking in the page's end (500 workers' worth on a busy machine takes seconds): the next
            # request waits for that, which is still much sooner than a new browser; one that never settles
            # is spinning on its own, and is recycled.
            self.after_answer(lambda: self._settle_or_recycle(watched))
            return
        log.info("cleared a failed page: renderers %s killed, the browser idle", killed)

    def _settle_or_recycle(self, watched: list[int]) -> None:
        busy = processes.settle_idle(
            watched, quiet_looks=_QUIET_LOOKS, look_s=_IDLE_LOOK_S, within_s=_SETTLE_LATER_S)
        if busy > 1:
            self._recycle_now(f"{busy} threads of the browser still runnable after its renderers were killed")

    def _relaunch_if_dead(self) -> None:
        try:
            self.browser(Deadline(get_settings().request_budget_ms))
        except Exception:
            log.exception("relaunching the browser failed; the next request launches it")

    def _recycle_now(self, why: str) -> None:
        log.warning("starting the driver and the browser afresh: %s", why)
        try:
            self.recycle()
        except Exception:
            log.exception("recycling the browser failed; the next request relaunches it")

    def note_use(self) -> None:
        """One request served by the current browser (worker thread); counts towards recycling."""
        self.uses += 1

    def _recycle_if_due(self) -> None:
        limit = get_settings().browser_recycle_after
        if limit <= 0 or self.uses < limit:
            return
        try:
            self.recycle()
        except Exception:
            # The next request launches afresh (or finds the new browser); nothing is lost by waiting.
            log.exception("recycling the browser failed; the next request relaunches it")

    def recycle(self) -> None:
        """Stop the driver and the browser, reap them, and start both again (worker thread)."""
        log.info("recycling the driver and the browser after %d requests", self.uses)
        self.uses = 0
        self.recycles += 1
        self._discard_browser()
        self._stop_driver()
        if self._scratch is not None:
            # Nothing uses it now; the new driver and browser get an empty one (_scratch_dir remakes it).
            shutil.rmtree(self._scratch, ignore_errors=True)
        # Launched now, so the next request finds it ready (on Lambda this may finish after the thaw).
        self.browser(Deadline(get_settings().request_budget_ms))

    def browser(self, deadline: Deadline) -> Browser:
        """The live browser, launching (or relaunching a dead one) within the deadline."""
        if self._install is not None:
            # Orphans of a browser that died on its own; a cheap look at our own children.
            processes.reap_orphans(self._install.executable)
        if self._browser is not None and self._is_healthy():
            return self._browser
        if self._browser is not None:
            log.warning("browser %s is gone; relaunching", self.pid)
            self._discard_browser()
        return self._launch(deadline)

    def _is_healthy(self) -> bool:
        # is_connected() only learns of a crash when Playwright next processes events; the pid check
        # catches a browser that died while we were idle (between invocations).
        assert self._browser is not None
        return self._browser.is_connected() and (self.pid is None or processes.is_alive(self.pid))

    def warm_up(self, budget_ms: int) -> Future[Browser]:
        """Start unpacking and launching now, without waiting: the browser functions call this at import
        (webcapture.warm_start). A failure is only logged; the first request then tries again."""
        future: Future[Browser] = Future()

        def job() -> Browser:
            # The budget is the launch's: unpacking first must not eat into it.
            self._prepare()
            return self.browser(Deadline(budget_ms))

        self._jobs.put((job, future))
        future.add_done_callback(_log_warm_up_failure)
        return future

    def _launch(self, deadline: Deadline) -> Browser:
        install, scratch, driver = self._prepare()
        proxy = egress.proxy_server()
        try:
            browser = driver.chromium.launch(
                executable_path=str(install.executable),
                args=[*LAMBDA_FLAGS, *egress.chromium_args()],
                env=_browser_env(install, scratch),
                proxy={"server": proxy} if proxy else None,
                timeout=deadline.timeout_ms(),
                # Lambda sends SIGTERM/SIGINT to the runtime, not to us; let shutdown() close the browser.
                handle_sigint=False,
                handle_sigterm=False,
                handle_sighup=False,
            )
        except Exception:
            # A dead driver cannot launch anything; start a new one next time.
            self._stop_driver()
            raise
        self._browser = self._mark("browser launched", browser)
        self.pid = processes.find_browser(scratch)
        return browser

    def _prepare(self) -> tuple[ChromiumInstall, Path, Playwright]:
        """What a launch needs: Chromium unpacked, the scratch folder, the driver running."""
        settings = get_settings()
        # Chromium unpacks on its own thread while this one unpacks Node and starts the driver: the two
        # inflate at once (each in a child process), and the driver's start overlaps Chromium's.
        pending: Future[ChromiumInstall] | None = None
        if self._install is None:
            pending = _in_background(
                lambda: self._mark("chromium unpacked", resolve_chromium(settings)), "webcapture-unpack"
            )
        scratch = self._scratch_dir(Path(settings.cache_dir))
        if self._playwright is None:
            # On Lambda the driver's Node ships compressed in the browser layer; unpack it (once).
            self._mark("node unpacked", ensure_playwright_node(settings))
            self._playwright = self._mark("driver started", _start_driver(scratch))
        if pending is not None:
            self._install = pending.result()
        assert self._install is not None
        return self._install, scratch, self._playwright

    def _mark(self, step: str, result: T) -> T:
        self.milestones.setdefault(step, time.monotonic())
        return result

    def _scratch_dir(self, cache_dir: Path) -> Path:
        if self._scratch is None:
            root = cache_dir / "browser-scratch"
            processes.remove_stale_scratch(root)
            processes.become_subreaper()
            self._scratch = root / processes.scratch_name(os.getpid())
        self._scratch.mkdir(parents=True, exist_ok=True)
        return self._scratch

    def _discard_browser(self) -> None:
        self.spare.discard()
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.close()
        self.kill_browser()
        pid, self.pid = self.pid, None
        if self._install is not None:
            processes.settle(pid, self._install.executable, wait_s=2.0)

    def _stop_driver(self) -> None:
        driver, self._playwright = self._playwright, None
        if driver is not None:
            with contextlib.suppress(Exception):
                driver.stop()

    def shutdown(self) -> None:
        self._discard_browser()
        self._stop_driver()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


def _in_background(job: Callable[[], T], name: str) -> Future[T]:
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(job())
        except BaseException as exc:
            future.set_exception(exc)

    threading.Thread(target=run, name=name, daemon=True).start()
    return future


def _log_warm_up_failure(future: Future[Browser]) -> None:
    if not future.cancelled() and (error := future.exception()) is not None:
        log.warning("launching the browser at init failed (the first request retries): %r", error)


def _start_driver(scratch: Path) -> Playwright:
    # The driver (a Node process) makes Chromium's profile folder in its os.tmpdir(), read from TMPDIR when
    # it starts; Playwright has no option for it. Point TMPDIR at our scratch folder just for that start.
    previous = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(scratch)
    try:
        return sync_playwright().start()
    finally:
        if previous is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = previous


def _browser_env(install: ChromiumInstall, scratch: Path) -> dict[str, str | float | bool]:
    env: dict[str, str | float | bool] = {
        name: os.environ[name] for name in _PASSED_ENV if name in os.environ
    }
    env.update(install.env)
    # Chromium points the Vulkan loader at SwiftShader by setting VK_ICD_FILENAMES in its own environment,
    # on its GPU thread (in the browser process: --in-process-gpu), then restoring it, while its thread pool
    # already calls getenv (fontconfig's start, slow at a cold start). Setting a variable that is not there
    # grows glibc's environ array, which may move and free the old one under such a reader: Chromium's rare
    # SIGSEGV at launch, a general protection fault in getenv on a ThreadPoolForeground thread
    # (docs/benchmarks.md, "Launch crashes"). Passed already, with the file Chromium names, its setenv
    # replaces the entry in place and nothing is freed (checked under gdb).
    icd = install.executable.parent / "vk_swiftshader_icd.json"
    if icd.is_file():
        env["VK_ICD_FILENAMES"] = str(icd)
    # Lambda's HOME is read-only (or unset); Chromium writes ~/.pki and XDG folders there.
    for name in ("HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"):
        env[name] = str(scratch)
    return env


_host: BrowserHost | None = None


def host() -> BrowserHost:
    """The container's browser host, made on first use and again after a shutdown or an abandoned one."""
    global _host
    with _host_lock:
        _host = _host or BrowserHost()
        return _host


def abandon_host(stuck: BrowserHost) -> None:
    """Give up on a worker that is stuck inside a call (the watchdog could not free it): kill its browser
    and let the next request start a new worker and driver."""
    global _host
    with _host_lock:
        if _host is stuck:
            _host = None
    stuck.kill_browser()
    stuck.stop_worker()


def shutdown_browser() -> None:
    """Close the browser and the driver and delete the scratch folder. Called at interpreter exit; tests
    call it to check that nothing is left behind. The next request launches afresh."""
    global _host
    with _host_lock:
        current, _host = _host, None
    if current is not None:
        with contextlib.suppress(Exception):
            current.submit(current.shutdown, wait_s=30)
        current.stop_worker()


def browser_pid() -> int | None:
    """The running browser's pid, if one is running (for diagnostics and tests)."""
    current = _host
    return current.pid if current is not None else None


atexit.register(shutdown_browser)
