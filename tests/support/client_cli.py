"""The client CLI as a user runs it: the `webcapture` command next to this Python, as a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.local_api import LocalApi

CLI = str(Path(sys.executable).with_name("webcapture"))


def webcapture(api: LocalApi, *args: str, key: str | None = None, url: str | None = None,
               cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`webcapture ARGS` against the local API (its URL and key unless given), its output captured."""
    env = {**os.environ, "WEBCAPTURE_API_URL": url or api.url, "WEBCAPTURE_API_KEY": key or api.api_key}
    return subprocess.run([CLI, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)
