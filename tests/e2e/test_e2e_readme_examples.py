"""Every curl and CLI example of README.md, run as written against the local API, each answer checked against
what the README says it is. Only the base URL and the key are substituted, https://example.com is a loopback
stand-in (tests/support/example_site.py; the stack's egress allow list admits loopback), and `<fileId>`,
`<jobId>` are the ids the examples before them answered."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.client_cli import CLI
from tests.support.example_site import ExampleSite
from tests.support.fake_openai import FakeOpenAI, json_completion
from tests.support.local_api import REPO, LocalApi

README = REPO / "README.md"
_STARTS = ("curl ", ".venv/bin/webcapture ")


def readme_examples() -> list[str]:
    """The README's curl and `webcapture` commands, each with its continuation lines, in order (the deploy
    block's operator command, which needs a deployed table, aside)."""
    found: list[str] = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(encoding="utf-8"), re.S):
        current: list[str] | None = None
        for line in block.splitlines():
            stripped = line.strip()
            ends = not stripped or stripped.startswith("#") or re.match(r"^[A-Z_]+=|export |make |\.venv/bin/sam",
                                                                        stripped)
            if stripped.startswith(_STARTS) or ends:
                if current:
                    found.append("\n".join(current))
                current = [stripped] if stripped.startswith(_STARTS) else None
            elif current is not None:
                current.append(line)
        if current:
            found.append("\n".join(current))
    return [command for command in found if "<ApiKeysTableName>" not in command]


@pytest.fixture(scope="module")
def site() -> Iterator[ExampleSite]:
    served = ExampleSite()
    yield served
    served.stop()


def _json(output: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(output)
    return body


def test_every_readme_example_answers_what_the_readme_says(
        local_api: LocalApi, site: ExampleSite, fake_openai: FakeOpenAI, tmp_path: Path) -> None:
    examples = readme_examples()
    assert sum(command.startswith("curl ") for command in examples) >= 13
    assert sum(command.startswith(".venv/bin/webcapture ") for command in examples) == 5
    (tmp_path / "product.json").write_text(json.dumps({  # the schema file the extract example names
        "type": "object", "properties": {"title": {"type": "string"}, "price": {"type": "number"}},
        "required": ["title", "price"]}))
    env = {**os.environ, "API": local_api.url, "KEY": local_api.api_key,
           "WEBCAPTURE_API_URL": local_api.url, "WEBCAPTURE_API_KEY": local_api.api_key}
    ids: dict[str, str] = {}
    for example in examples:
        command = (example.replace("http://127.0.0.1:3000", local_api.url).replace("wc_...", local_api.api_key)
                   .replace("https://example.com", site.url).replace(".venv/bin/webcapture", CLI))
        for name, value in ids.items():
            command = command.replace(f"<{name}>", value)
        if "ai-extract" in command or " extract " in command:
            fake_openai.script(json_completion({"title": "Example Domain", "price": 19.99}))
        run = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=120, check=False)
        assert run.returncode == 0, f"{example}\n{run.stderr}"
        _check(example, run.stdout, tmp_path, ids)
        if '"maxAge": 3600' in example:  # "the same request again within it is answered from the cache"
            again = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                                   text=True, timeout=120, check=False)
            body = _json(again.stdout)
            assert body["creditsCost"] == 0 and body["data"]["markdown"] == _json(run.stdout)["data"]["markdown"]


def _check(example: str, output: str, folder: Path, ids: dict[str, str]) -> None:
    """What the README says the example answers."""
    if example.startswith(".venv/bin/webcapture "):
        _check_cli(example, output, folder)
        return
    if "-o page.png" in example or "-o heading.png" in example:
        name = "page.png" if "-o page.png" in example else "heading.png"
        assert (folder / name).read_bytes()[:4] == b"\x89PNG", example
        return
    if "-o page.pdf" in example:
        assert (folder / "page.pdf").read_bytes()[:5] == b"%PDF-", example
        return
    body = _json(output)
    assert body["success"] is True, f"{example}\n{output}"
    data = body["data"]
    if '"deviceScaleFactor": 2' in example:  # a 390x844 viewport at 2x, jpeg, stored with a permanent URL
        # The viewport, not the full page: 844 CSS pixels at 2x (mobile emulation may round one pixel off).
        assert (data["metadata"]["width"], data["metadata"]["format"]) == (780, "jpeg")
        assert 1680 <= data["metadata"]["height"] <= 1688
        assert data["permanentUrl"].startswith("http") and "warning" not in data
        ids["fileId"] = data["fileId"]
    elif '"actions"' in example:  # "Load more" clicked twice, then the links
        assert sum("/page/" in link["url"] for link in data["links"]) == 2
    elif "/v1/web/links" in example:  # internal only
        assert data["links"] and all(link["url"].startswith("http://127.0.0.1") for link in data["links"])
    elif "/v1/web/ai-extract" in example:
        assert data["extracted"] == {"title": "Example Domain", "price": 19.99}
    elif "/v1/web/markdown" in example:  # the first time, with or without maxAge: rendered and charged
        assert "illustrative examples" in data["markdown"] and body["creditsCost"] == 1
    elif "/v1/files/delete" in example:
        assert data["deletedFromStorage"] is True
    elif "/v1/api-keys/list" in example:
        assert data["total"] >= 1
    elif "/v1/batch" in example:
        assert data["total"] == 1
        ids["jobId"] = data["jobId"]
    elif "/v1/jobs/" in example:
        assert data["jobId"] == ids["jobId"]
    else:
        raise AssertionError(f"an example this test does not know: {example}")


def _check_cli(example: str, output: str, folder: Path) -> None:
    if " shot " in example:
        assert (folder / "page.png").read_bytes()[:4] == b"\x89PNG"
    elif " links " in example:  # --internal-only: one link a line, all on the page's own host
        assert output and all(line.startswith("http://127.0.0.1") for line in output.splitlines())
    elif " markdown " in example:
        assert "illustrative examples" in (folder / "post.md").read_text()
    elif " pdf " in example:
        assert (folder / "page.pdf").read_bytes()[:5] == b"%PDF-"
    elif " extract " in example:
        assert json.loads(output) == {"title": "Example Domain", "price": 19.99}
    else:
        raise AssertionError(f"an example this test does not know: {example}")
