"""The client CLI (`webcapture shot|links|extract ...`) as a user runs it: a subprocess against the local API."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from tests.support.client_cli import CLI, webcapture
from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size


def test_shot_writes_the_image(local_api: LocalApi, tmp_path: Path) -> None:
    out = tmp_path / "page.png"
    run = webcapture(local_api, "shot", get_server().url("/plain.html"), "-o", str(out), "--no-full-page",
                     "--width", "640", "--height", "480", "--quiet")
    assert run.returncode == 0, run.stderr
    assert png_size(out.read_bytes()) == (640, 480)
    assert f"wrote {out}" in run.stderr


def test_shot_says_it_is_waiting_on_a_long_request(local_api: LocalApi, tmp_path: Path) -> None:
    run = webcapture(local_api, "shot", get_server().url("/plain.html"), "-o", str(tmp_path / "slow.png"),
                     "--wait-time", "3000", "--format", "jpeg")
    assert run.returncode == 0, run.stderr
    assert "webcapture: waiting for /v1/web/screenshot" in run.stderr
    assert (tmp_path / "slow.png").read_bytes()[:3] == b"\xff\xd8\xff"


def test_links_prints_one_per_line(local_api: LocalApi) -> None:
    run = webcapture(local_api, "links", get_server().url("/links.html"), "--quiet")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines and all(line.split("\t")[0].startswith("http") for line in lines)
    as_json = webcapture(local_api, "links", get_server().url("/links.html"), "--json", "--quiet")
    assert json.loads(as_json.stdout)["metadata"]["totalLinks"] == len(lines)


def test_extract_with_a_schema_file(local_api: LocalApi, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps({"type": "object", "properties": {"title": {"type": "string"}},
                                  "required": ["title"]}))
    fake_openai.script(json_completion({"title": "Boots"}))
    run = webcapture(local_api, "extract", get_server().url("/product.html"), "--prompt", "the title",
                     "--schema", str(schema), "--quiet")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"title": "Boots"}


@pytest.mark.parametrize(("args", "key", "code", "text"), [
    (("shot", "http://169.254.169.254/latest/meta-data/"), None, 4, "400 URL_NOT_ALLOWED: "),
    (("links", "ftp://example.com/"), None, 4, "422 VALIDATION_ERROR: url: an absolute http(s) URL is needed"),
    (("links", "https://example.com/"), "wc_" + "x" * 64, 3, "401 UNAUTHORIZED: Authentication required"),
    (("links", "https://no-such-host.invalid/"), None, 6, "502 NAVIGATION_FAILED: "),
])
def test_errors_are_one_line_with_a_code_and_an_exit_status(
        local_api: LocalApi, args: tuple[str, ...], key: str | None, code: int, text: str) -> None:
    run = webcapture(local_api, *args, "--quiet", key=key)
    assert run.returncode == code
    assert run.stdout == ""
    assert run.stderr.startswith(f"webcapture: {text}") and run.stderr.count("\n") == 1, run.stderr


def test_an_unreachable_api_is_exit_8(local_api: LocalApi) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    run = webcapture(local_api, "links", "https://example.com/", "--quiet", url=f"http://127.0.0.1:{port}")
    assert run.returncode == 8
    assert run.stderr.startswith("webcapture: cannot reach the API at http://127.0.0.1:")


def test_no_key_is_a_usage_error(local_api: LocalApi) -> None:
    env = {k: v for k, v in os.environ.items() if k != "WEBCAPTURE_API_KEY"}
    run = subprocess.run([CLI, "links", "https://example.com/"], env=env, capture_output=True, text=True,
                         timeout=60, check=False)
    assert run.returncode == 2 and "WEBCAPTURE_API_KEY" in run.stderr
