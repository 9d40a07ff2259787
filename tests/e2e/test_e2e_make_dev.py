"""`make dev` as a newcomer runs it: on ports of their choosing, a taken port reported at once, a demo key kept
across restarts, no metrics lines on the console, and the operator CLI reaching its keys with no AWS
environment (README.md, "Quick start"; docs/deploy.md#api-keys)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

from tests.support.local_api import REPO

PORT, AWS_PORT = 3301, 4601
ADMIN = str(Path(sys.executable).with_name("webcapture-admin"))


def _without_aws(env: dict[str, str]) -> dict[str, str]:
    return {name: value for name, value in env.items() if not name.startswith("AWS_")}


@contextmanager
def make_dev(key_file: Path) -> Iterator[tuple[str, list[str]]]:
    """`make dev PORT=3301 AWS_PORT=4601` until its demo key is printed: the key and the console's lines."""
    process = subprocess.Popen(
        ["make", "--no-print-directory", "dev", f"PORT={PORT}", f"AWS_PORT={AWS_PORT}",
         f"DEMO_KEY_FILE={key_file}", "DEV_ARGS=--no-prewarm"],
        cwd=REPO, env=_without_aws(dict(os.environ)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)
    assert process.stdout is not None
    lines: list[str] = []
    key = ""
    try:
        for line in process.stdout:
            lines.append(line)
            found = re.search(r"demo API key .*: (wc_[A-Za-z]{64})$", line.strip())
            if found:
                key = found[1]
                break
        assert key, "".join(lines[-20:])
        stdout = process.stdout
        threading.Thread(target=lambda: lines.extend(stdout), daemon=True).start()
        yield key, lines
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_make_dev_serves_on_the_ports_given_and_keeps_its_demo_key(tmp_path: Path) -> None:
    key_file = tmp_path / "demo-key"
    base = f"http://127.0.0.1:{PORT}"
    with make_dev(key_file) as (key, lines):
        assert f"webcapture local API on {base} (AWS emulated by moto on http://127.0.0.1:{AWS_PORT})\n" in lines
        listed = requests.get(f"{base}/v1/api-keys/list", headers={"Authorization": f"Bearer {key}"}, timeout=60)
        assert listed.status_code == 200, listed.text
        assert requests.get(f"{base}/", allow_redirects=False, timeout=30).headers["Location"] == (
            f"{base}/v1/docs")
        # The operator CLI with no AWS_* variable at all: dummy credentials, region and the local table.
        operator = subprocess.run(
            [ADMIN, "keys", "list", "--user", "demo-user", "--endpoint-url", f"http://127.0.0.1:{AWS_PORT}"],
            env=_without_aws(dict(os.environ)), capture_output=True, text=True, timeout=60, check=False)
        assert operator.returncode == 0, operator.stderr
        assert [record["start"] for record in json.loads(operator.stdout)] == [key[:6]]
        time.sleep(1)  # what the request logged has reached the console
        assert not any('"_aws"' in line for line in lines), "a CloudWatch metrics line reached the console"
    assert key_file.read_text().strip() == key
    with make_dev(key_file) as (again, _):
        assert again == key
        assert requests.get(f"{base}/v1/api-keys/list", headers={"Authorization": f"Bearer {key}"},
                            timeout=60).status_code == 200


def test_a_taken_moto_port_is_reported_at_once(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        # Bounded: before, moto's server thread died on the port and the stack waited for it forever.
        run = subprocess.run([sys.executable, "-m", "localapi", "--port", "0", "--aws-port", str(port)],
                             cwd=REPO, capture_output=True, text=True, timeout=10, check=False)
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == (f"python -m localapi: The AWS emulator (moto) cannot listen on 127.0.0.1:{port} "
                          "(Address already in use); another program (LocalStack, another make dev) holds it: "
                          "choose another port with --aws-port (make dev AWS_PORT=...)\n")


def test_the_operator_cli_says_a_missing_region_in_one_line() -> None:
    run = subprocess.run([ADMIN, "keys", "list", "--user", "u"], env=_without_aws(dict(os.environ)),
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("webcapture-admin: no AWS region: ") and run.stderr.count("\n") == 1, run.stderr
