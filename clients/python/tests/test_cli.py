"""The `webcapture` command as installed: its version, and a command against a loopback API."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

import webcapture_client
from tests.fake_api import FakeApi, failed, ok

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def webcapture(api: FakeApi, *args: str, cwd: str | None = None) -> subprocess.CompletedProcess[str]:
    command = Path(sys.executable).with_name("webcapture")
    env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": "wc_test"}
    return subprocess.run([str(command), *args], env=env, cwd=cwd, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, check=False)


class CliTest(unittest.TestCase):
    def test_version(self) -> None:
        with FakeApi() as api:
            answer = webcapture(api, "--version")
        self.assertEqual(answer.stdout.strip(), f"webcapture {webcapture_client.__version__}")

    def test_shot_writes_the_image_the_api_answered(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            api.on("POST /v1/web/screenshot", ok({}))
            api.replies["POST /v1/web/screenshot"][0].body = PNG
            api.replies["POST /v1/web/screenshot"][0].headers = {"Content-Type": "image/png"}
            answer = webcapture(api, "shot", "https://example.com", "-o", "page.png", "--quiet", cwd=folder)
            self.assertEqual(answer.returncode, 0, answer.stderr)
            self.assertEqual((Path(folder) / "page.png").read_bytes(), PNG)
        sent = api.seen[0]
        self.assertEqual(sent.headers["Authorization"], "Bearer wc_test")
        self.assertEqual(sent.body["url"], "https://example.com")

    def test_an_error_is_one_line_with_its_exit_code(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", failed(401, "UNAUTHORIZED", "bad key"))
            answer = webcapture(api, "markdown", "https://example.com", "--quiet")
        self.assertEqual(answer.returncode, 3)
        self.assertEqual(answer.stderr.strip(), "webcapture: 401 UNAUTHORIZED: bad key")

    def test_mcp_without_the_extra_says_how_to_install_it(self) -> None:
        try:
            import mcp  # noqa: F401
        except ImportError:
            with FakeApi() as api:
                answer = webcapture(api, "mcp")
            self.assertEqual(answer.returncode, 2)
            self.assertIn("webcapture-client[mcp]", answer.stderr)
        else:  # the dev venv has the extra: the server starts and ends when its stdin closes
            with FakeApi() as api:
                answer = webcapture(api, "mcp")
            self.assertEqual(answer.returncode, 0, answer.stderr)
