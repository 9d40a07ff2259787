"""The warm start: a browser function's handler import begins unpacking and launching the browser; the
other functions' imports do not; a failure at init never fails the import and is retried by the first
request. Each case runs in a fresh Python process, as a Lambda cold start does, on the real pinned
Chromium (unpacked into an empty cache folder) and a loopback page."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from localapi.cfn_template import load_template
from tests.support.fixture_server import (  # noqa: F401 - fixtures
    EGRESS_ALLOW,
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser.launch.chromium_pack import pack_dir, resolve_chromium
from webcapture.settings import Settings

REPO = Path(__file__).resolve().parents[2]

# Imports the warm start as a handler's first line does, then looks on while it works.
_LAUNCHED_WITHOUT_A_REQUEST = """
import json, sys, threading, time
import webcapture.warm_start
assert webcapture.warm_start.wait(120), "the warm-up did not finish"
from webcapture.browser.lifecycle import host
launched = host().pid
from webcapture.browser import take_screenshot
from webcapture.models.requests import ScreenshotRequest
shot = take_screenshot(ScreenshotRequest.model_validate({"url": sys.argv[1]}))
print(json.dumps({"steps": sorted(host().milestones), "launched_pid": launched, "pid_after": host().pid,
                  "png": shot.image[:4] == b"\\x89PNG"}))
"""

_FAILS_AT_INIT_THEN_RECOVERS = """
import json, logging, os, sys, time
logging.basicConfig(level=logging.WARNING, format="%(message)s")
import webcapture.warm_start  # the pack it names does not exist: the warm-up fails, the import does not
assert webcapture.warm_start.wait(120), "the warm-up did not finish"
from webcapture.browser.lifecycle import host
failed_pid = host().pid
os.environ["WEBCAPTURE_CHROMIUM_PACK"] = sys.argv[2]  # the pack is there now
from webcapture.settings import get_settings
get_settings.cache_clear()
from webcapture.browser import take_screenshot
from webcapture.models.requests import ScreenshotRequest
shot = take_screenshot(ScreenshotRequest.model_validate({"url": sys.argv[1]}))
print(json.dumps({"failed_pid": failed_pid, "pid_after": host().pid, "png": shot.image[:4] == b"\\x89PNG"}))
"""


def run_python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code, *args], env={**os.environ, **env}, cwd=REPO,
                          capture_output=True, text=True, timeout=240, check=False)


def test_importing_the_warm_start_launches_the_browser_before_any_request(
    fixture_server: FixtureHttpServer, tmp_path: Path
) -> None:
    env = {"WEBCAPTURE_CACHE_DIR": str(tmp_path / "tmp"), "WEBCAPTURE_EGRESS_ALLOW": EGRESS_ALLOW}
    run = run_python(_LAUNCHED_WITHOUT_A_REQUEST, fixture_server.url("/plain.html"), env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    # Chromium unpacked from the empty cache, the driver started and the browser launched, all before the
    # first request; the request then used that same browser.
    assert {"chromium unpacked", "driver started", "browser launched"} <= set(report["steps"])
    assert report["launched_pid"] is not None and report["launched_pid"] == report["pid_after"]
    assert report["png"]
    assert any(entry.name.startswith("chromium-") for entry in (tmp_path / "tmp").iterdir())


def test_a_failure_at_init_is_logged_and_the_first_request_tries_again(
    fixture_server: FixtureHttpServer, tmp_path: Path
) -> None:
    # The retry uses the suite's cache, with the pack unpacked beforehand: it checks the retry, not how
    # fast a loaded machine unpacks within one request's budget.
    resolve_chromium(Settings())
    env = {"WEBCAPTURE_EGRESS_ALLOW": EGRESS_ALLOW, "WEBCAPTURE_CHROMIUM_PACK": str(tmp_path / "no-pack-here")}
    real_pack = str(pack_dir(Settings()))
    run = run_python(_FAILS_AT_INIT_THEN_RECOVERS, fixture_server.url("/plain.html"), real_pack, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "at init failed" in run.stderr and "no-pack-here" in run.stderr
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["failed_pid"] is None  # nothing was launched at init
    assert report["pid_after"] is not None and report["png"]


def _handler_modules() -> dict[str, tuple[Path, bool]]:
    """Each function's handler file, and whether it is a browser function (has the BrowserLayer)."""
    template = load_template(REPO / "template.yaml")
    found = {}
    for name, resource in template["Resources"].items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        module = props.get("Handler", "app.lambda_handler").rpartition(".")[0]
        layers = [ref.get("Ref") for ref in props.get("Layers", []) if isinstance(ref, dict)]
        found[name] = (REPO / props["CodeUri"] / f"{module}.py", "BrowserLayer" in layers)
    return found


_IMPORTS = """
import importlib.util, json, sys, threading
spec = importlib.util.spec_from_file_location("handler", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps({"warm_start": "webcapture.warm_start" in sys.modules,
                  "threads": sorted(t.name for t in threading.enumerate())}))
"""


@pytest.mark.parametrize("function", sorted(_handler_modules()))
def test_only_browser_functions_warm_start(function: str, tmp_path: Path) -> None:
    handler, is_browser = _handler_modules()[function]
    # Turned off: this checks who imports it, without launching browsers in a dozen processes.
    env = {"WEBCAPTURE_CACHE_DIR": str(tmp_path / "tmp"), "WEBCAPTURE_WARM_START": "0"}
    run = run_python(_IMPORTS, str(handler), env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["warm_start"] is is_browser, f"{function}: browser function {is_browser}"
    assert "webcapture-warm-start" not in report["threads"]  # and turned off, it starts nothing
    assert not (tmp_path / "tmp").exists() or not any((tmp_path / "tmp").iterdir())
