"""The client's wheel as a user installs it: an empty venv (scripts/client_wheel.py), the wheel without an
index, then `webcapture --version`, `webcapture shot` and the SDK (Client and AsyncClient) against the local
API from that venv, where the service's packages cannot be imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from tests.support.png_pixels import png_size

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "scripts"))
import client_wheel  # noqa: E402

SDK_CALLS = """
import json, sys
from webcapture_client import Client, NotFoundError, ValidationError
client = Client()
page, shot = sys.argv[1], sys.argv[2]
found = {}
found["markdown"] = client.markdown(url=page).markdown
found["links"] = [link.url for link in client.links(url=page).links]
found["size"] = len(client.screenshot(url=shot, screenshotOptions={"fullPage": False},
                                      viewport={"width": 320, "height": 200}).image)
try:
    client.links(url="ftp://example.com/")
except ValidationError as error:
    found["invalid"] = [error.status, error.issues[0]["path"]]
try:
    client.job("no-such-job").status()
except NotFoundError as error:
    found["missing"] = [error.status, error.code, bool(error.request_id)]
print(json.dumps(found))
"""

ASYNC_SDK_CALLS = """
import asyncio, json, sys
from webcapture_client import AsyncClient, NotFoundError, ValidationError

async def main():
    client = AsyncClient()
    page, shot = sys.argv[1], sys.argv[2]
    found = {}
    # One at a time: calls side by side would each start a container (and a browser) of the local API,
    # whose 8 s budget a cold start on a loaded machine can spend (the unit tests run them side by side).
    found["markdown"] = (await client.markdown(url=page)).markdown
    found["links"] = [link.url for link in (await client.links(url=page)).links]
    image = await client.screenshot(url=shot, screenshotOptions={"fullPage": False},
                                    viewport={"width": 320, "height": 200})
    found["size"] = len(image.image)
    try:
        await client.links(url="ftp://example.com/")
    except ValidationError as error:
        found["invalid"] = [error.status, error.issues[0]["path"]]
    try:
        await client.job("no-such-job").status()
    except NotFoundError as error:
        found["missing"] = [error.status, error.code]
    batch = await client.batch(operation="links", requests=[{"url": page}, {"url": shot}])
    found["final"] = (await batch.wait(poll_s=0.5, timeout_s=120)).status
    found["results"] = [[result.index, result.status, bool(result.data["links"])] async for result in batch]
    print(json.dumps(found))

asyncio.run(main())
"""

@pytest.fixture(scope="module")
def client_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    where = tmp_path_factory.mktemp("client-wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(where / "dist"), str(REPO / "clients" / "python")], check=True)
    wheel = next((where / "dist").glob("webcapture_client-*.whl"))
    yield client_wheel.empty_venv(where / "venv", wheel)


def run(api: LocalApi, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """A command of the client's venv, with the API's address and key and nothing of this process's own
    Python environment."""
    env = {"PATH": os.environ["PATH"], "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": api.api_key}
    return subprocess.run(list(args), env=env, cwd=cwd, capture_output=True, text=True, timeout=180,
                          check=False)


def test_the_wheel_installs_alone_small_and_without_the_service(client_python: Path) -> None:
    assert client_wheel.check(client_python) == []
    assert client_wheel.requirements(client_python) == ['mcp==2.3.0; extra == "mcp"']


def test_webcapture_shot_from_the_wheel(client_python: Path, local_api: LocalApi, tmp_path: Path) -> None:
    command = str(client_python.with_name("webcapture"))
    version = run(local_api, command, "--version")
    assert version.stdout.strip() == "webcapture 1.0.0"
    shot = run(local_api, command, "shot", get_server().url("/plain.html"), "-o", "page.png",
               "--no-full-page", "--width", "400", "--height", "300", "--quiet", cwd=tmp_path)
    assert shot.returncode == 0, shot.stderr
    assert png_size((tmp_path / "page.png").read_bytes()) == (400, 300)


def test_the_sdk_from_the_wheel(client_python: Path, local_api: LocalApi) -> None:
    page, shot = get_server().url("/links.html"), get_server().url("/plain.html")
    answer = run(local_api, str(client_python), "-c", SDK_CALLS, page, shot)
    assert answer.returncode == 0, answer.stderr
    found = json.loads(answer.stdout)
    assert found["markdown"].strip() and found["links"] and found["size"] > 100
    assert found["invalid"] == [422, ["url"]]
    assert found["missing"] == [404, "NOT_FOUND", True]


def test_the_async_sdk_from_the_wheel(client_python: Path, local_api: LocalApi) -> None:
    page, shot = get_server().url("/links.html"), get_server().url("/plain.html")
    answer = run(local_api, str(client_python), "-c", ASYNC_SDK_CALLS, page, shot)
    assert answer.returncode == 0, answer.stderr
    found = json.loads(answer.stdout)
    assert found["markdown"].strip() and found["links"] and found["size"] > 100
    assert found["invalid"] == [422, ["url"]]
    assert found["missing"] == [404, "NOT_FOUND"]
    assert found["final"] == "completed"
    assert [result[:2] for result in found["results"]] == [[0, "completed"], [1, "completed"]]
    assert found["results"][0][2] is True  # links.html has links
