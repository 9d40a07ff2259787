"""The monitors from the client, as the READMEs show them, against the local API: README.md's `webcapture
monitors` commands run as written (create a monitor of a loopback page, run it and wait for the check, list
the checks, change its schedule, delete it), then clients/python/README.md's SDK example. Only the base URL,
the key and https://example.com (a loopback stand-in) are substituted, and `mon_...` by the id the create
answered."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.client_cli import CLI, webcapture
from tests.support.example_site import ExampleSite
from tests.support.local_api import REPO, LocalApi


@pytest.fixture(scope="module")
def site() -> Iterator[ExampleSite]:
    served = ExampleSite()
    yield served
    served.stop()


def readme_monitor_commands() -> list[str]:
    """README.md's `webcapture monitors` commands, each with its continuation lines."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [match.group(0) for match in re.finditer(r"^webcapture monitors (?:[^\n]*\\\n)*[^\n]*$", text, re.M)]


def test_the_readme_commands_watch_a_page_run_it_list_its_checks_and_delete_it(
        local_api: LocalApi, site: ExampleSite, tmp_path: Path) -> None:
    commands = readme_monitor_commands()
    assert [command.split()[2] for command in commands] == ["create", "run", "checks", "update", "delete"]
    env = {**os.environ, "WEBCAPTURE_API_URL": local_api.url, "WEBCAPTURE_API_KEY": local_api.api_key}
    answers = []
    monitor_id = ""
    for command in commands:
        line = (command.replace("https://example.com", site.url).replace("mon_...", monitor_id)
                .replace("webcapture ", f"{CLI} ", 1))
        run = subprocess.run(["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=150, check=False)
        assert run.returncode == 0, f"{command}\n{run.stderr}"
        answers.append(json.loads(run.stdout))
        monitor_id = monitor_id or answers[0]["monitorId"]
    created, check, listed, updated, deleted = answers
    assert (created["url"], created["operation"], created["schedule"]) == (
        f"{site.url}/pricing", "markdown", "rate(1 hour)")
    assert created["webhook"]["url"] == f"{site.url}/webhooks/changed" and created["nextRunAt"]
    assert (check["status"], check["changeStatus"], check["creditsCost"]) == ("completed", "new", 1)
    assert "illustrative examples" in check["data"]["markdown"]
    assert [c["checkId"] for c in listed["checks"]] == [check["checkId"]]
    assert (updated["schedule"], updated["timezone"]) == ("cron(0 9 ? * MON-FRI *)", "Europe/Berlin")
    assert deleted == {"monitorId": monitor_id, "deleted": True}
    gone = webcapture(local_api, "monitors", "get", monitor_id)
    assert (gone.returncode, gone.stdout) == (4, "")
    assert gone.stderr.startswith("webcapture: 404 NOT_FOUND: ")


def test_the_client_readmes_sdk_example_runs_as_written(local_api: LocalApi, site: ExampleSite) -> None:
    text = (REPO / "clients" / "python" / "README.md").read_text(encoding="utf-8")
    (example,) = [block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "create_monitor(" in block]
    env = {**os.environ, "WEBCAPTURE_API_URL": local_api.url, "WEBCAPTURE_API_KEY": local_api.api_key}
    run = subprocess.run([sys.executable, "-c", example.replace("https://example.com", site.url)], env=env,
                         capture_output=True, text=True, timeout=150, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("mon_") and lines[1] == "completed new"
    assert re.fullmatch(r"\S+ completed new 1", lines[2]) and len(lines) == 4
    assert "'Pricing'" in lines[3]  # listed before its delete
    monitor_id = lines[0].split()[0]
    listed = local_api.call("GET", "/v1/monitors").json()["data"]["monitors"]
    assert monitor_id not in [monitor["monitorId"] for monitor in listed]
