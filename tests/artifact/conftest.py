"""The build under test (built once per session), python3.12, moto's server and a fixture site on loopback."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from localapi.aws_emulator import create_template_resources
from localapi.cfn_template import load_template
from tests.artifact.harness import (
    BUILD_DIR,
    COLD_START_LOG,
    PHYSICAL_NAMES,
    REPO_ROOT,
    BuiltFunction,
    built_functions,
    find_python312,
    lay_out_opt,
    resolver_for,
)
from tests.support.stack_stores import stores_environment

FIXTURE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>Artifact fixture</title></head>
<body style="margin:0;background:#fafafa">
  <h1>Built and running</h1>
  <p>Rendered by the Chromium of the built BrowserLayer. 日本語のテキスト 🚀</p>
  <a href="/docs">Docs</a> <a href="/pricing">Pricing</a> <a href="https://example.org/elsewhere">Elsewhere</a>
</body></html>
"""


@pytest.fixture(scope="session")
def build_dir() -> Path:
    """`.aws-sam/build`: as `make test` / `make artifact-test` just built it, else built here once."""
    if os.environ.get("WEBCAPTURE_SAM_BUILT") != "1" or not (BUILD_DIR / "template.yaml").is_file():
        subprocess.run(["make", "build"], cwd=REPO_ROOT, check=True, timeout=1800)
    return BUILD_DIR


@pytest.fixture(scope="session")
def cold_start_log(build_dir: Path) -> Path:
    """Where each invocation's timings go (scripts/layer_sizes.py --write-docs reports them)."""
    log = COLD_START_LOG
    log.unlink(missing_ok=True)
    return log


@pytest.fixture(scope="session")
def python312() -> Path:
    found = find_python312()
    if found is None:
        pytest.fail("the artefact tests need CPython 3.12 (Lambda's runtime; the built wheels are cp312): "
                    "install it (pyenv install 3.12) or set WEBCAPTURE_PYTHON312")
    return found


@pytest.fixture(scope="session")
def functions(build_dir: Path) -> dict[str, BuiltFunction]:
    return built_functions(build_dir)


@pytest.fixture(scope="session")
def opt_for(functions: dict[str, BuiltFunction], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each function's /opt stand-in (one per distinct list of layers)."""
    layouts: dict[tuple[Path, ...], Path] = {}
    for function in functions.values():
        if function.layer_dirs not in layouts:
            root = tmp_path_factory.mktemp("opt")
            layouts[function.layer_dirs] = lay_out_opt(function.layer_dirs, root / "opt")
    return {name: layouts[function.layer_dirs] for name, function in functions.items()}


@dataclass(frozen=True)
class AwsStack:
    endpoint: str
    key: str
    context: dict[str, str]  # what the authorizer puts in requestContext.authorizer for this key

    @property
    def env(self) -> dict[str, str]:
        return {"AWS_ENDPOINT_URL_DYNAMODB": self.endpoint, "AWS_ENDPOINT_URL_S3": self.endpoint}

    def client(self, service: str) -> object:
        return boto3.client(service, endpoint_url=self.endpoint, region_name="us-east-1",  # type: ignore[call-overload]
                            aws_access_key_id="artifact", aws_secret_access_key="artifact")


@contextmanager
def webcapture_pointed_at(stack_endpoint: str) -> Iterator[None]:
    """This process's webcapture stores on the moto server, for setting up data; undone afterwards."""
    values = {"AWS_ENDPOINT_URL_DYNAMODB": stack_endpoint, "AWS_ENDPOINT_URL_S3": stack_endpoint,
              "API_KEYS_TABLE": PHYSICAL_NAMES["ApiKeysTable"], "FILES_TABLE": PHYSICAL_NAMES["FilesTable"],
              "FILES_BUCKET": PHYSICAL_NAMES["FilesBucket"]}
    with pytest.MonkeyPatch.context() as patch, stores_environment(patch, values):
        yield


@pytest.fixture(scope="module")
def aws_stack(build_dir: Path) -> Iterator[AwsStack]:
    """moto's server on loopback with the built template's tables and bucket, and one API key."""
    from webcapture.auth import api_keys

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    try:
        template = load_template(build_dir / "template.yaml")
        stack = AwsStack(endpoint, "", {})
        create_template_resources(stack.client("dynamodb"), stack.client("s3"), template, resolver_for(template))
        with webcapture_pointed_at(endpoint):
            key, record = api_keys.create_key("artifact-user", "artifact", remaining=100)
        context = {"userId": "artifact-user", "tokenKind": "api_key", "keyId": record.id, "limited": "true"}
        yield AwsStack(endpoint, key, context)
    finally:
        server.stop()


class _Site(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        body = FIXTURE_PAGE.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def fixture_site() -> Iterator[str]:
    """A page on loopback for the built browser to capture (the egress guard lets 127.0.0.0/8 through
    only because the tests say so)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
