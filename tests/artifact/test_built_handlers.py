"""Every built handler, run from .aws-sam/build as Lambda would run it, with its events/ event.

Each invocation is a fresh python3.12 (-I -S) whose import path is only the function's folder, its layers
laid out as /opt and the standard library; a missing dependency or a wrong path in the build fails here.
The browser functions unpack Chromium and Playwright's Node from the built BrowserLayer into an empty /tmp
stand-in and capture a page on loopback; the others answer against moto's server.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.artifact.conftest import AwsStack, webcapture_pointed_at
from tests.artifact.harness import (
    COLD_START_LOG,
    PHYSICAL_NAMES,
    BuiltFunction,
    Invocation,
    allowed_roots,
    foreign_modules,
    invoke,
    load_event,
    tree_bytes,
    with_body,
    with_key,
)
from tests.support.fake_openai import FakeOpenAI, json_completion

BROWSER_ENV = {"WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8"}
MB = 1024 * 1024


@pytest.fixture(autouse=True)
def _log_ready(cold_start_log: Path) -> None:
    """Start the session's cold-start log before the first invocation."""


def _snapshot(roots: list[Path]) -> dict[str, tuple[int, int]]:
    files = {}
    for root in roots:
        for path in root.rglob("*"):
            info = path.lstat()
            files[str(path)] = (info.st_size, info.st_mtime_ns)
    return files


@pytest.fixture(scope="module", autouse=True)
def _read_only_code(build_dir: Path, opt_for: dict[str, Path]) -> Iterator[None]:
    """/var/task and /opt are read-only on Lambda; these runs are root, so check nothing was written."""
    roots = [build_dir, *{opt.parent for opt in opt_for.values()}]
    before = _snapshot(roots)
    yield
    after = _snapshot(roots)
    changed = sorted(path for path in before.keys() | after.keys() if before.get(path) != after.get(path))
    if changed:
        pytest.fail(f"the handlers wrote into their code or layers (read-only on Lambda): {changed[:10]}")


def run(python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], name: str,
        event: dict[str, Any], sandbox: Path, env: dict[str, str]) -> Invocation:
    function = functions[name]
    extra = dict(env)
    if "BrowserLayer" in function.layers:
        # /opt cannot be written here, so the pack is named explicitly; on Lambda it is /opt/chromium.
        extra["WEBCAPTURE_CHROMIUM_PACK"] = str(opt_for[name] / "chromium")
    invocation = invoke(python312, function, opt_for[name], event, sandbox, extra)
    foreign = foreign_modules(invocation, allowed_roots(function, python312))
    assert not foreign, f"{name} imported modules from outside its build: {foreign[:10]}"
    with COLD_START_LOG.open("a") as log:
        log.write(json.dumps({"function": name, "init_s": invocation.result.get("init_s"),
                              "invoke_s": invocation.result.get("invoke_s"),
                              "tmp_bytes": tree_bytes(invocation.tmp_dir)}) + "\n")
    return invocation


def test_every_function_has_an_event(functions: dict[str, BuiltFunction]) -> None:
    for function in functions.values():
        folder = function.code_dir.name
        assert (function.code_dir / "app.py").is_file(), f"{folder}: no app.py in the build"
    events = {p.stem for p in (Path(__file__).resolve().parents[2] / "events").glob("*.json")}
    sources = {"AuthorizerFunction": "authorizer", "ScreenshotFunction": "screenshot", "LinksFunction": "links",
               "AiExtractFunction": "ai_extract", "FilesDeleteFunction": "files_delete",
               "ApiKeysListFunction": "api_keys_list", "MethodNotAllowedFunction": "fallback",
               "MarkdownFunction": "markdown", "ContentFunction": "content", "PdfFunction": "pdf",
               "DocsFunction": "docs", "MapFunction": "map", "CrawlFunction": "crawl", "BatchFunction": "batch",
               "JobsFunction": "jobs_get",
               "WebhooksFunction": "webhook_delivery", "WebhookSecretFunction": "webhook_secret",
               "SigningSecretFunction": "signing_secret", "ProfilesFunction": "profiles",
               "MonitorsFunction": "monitors", "MonitorsCompareFunction": "monitor_compare",
               "McpFunction": "mcp"}
    assert set(functions) == set(sources), "a function was added or renamed: give it an events/ file here"
    assert set(sources.values()) <= events


def test_authorizer_allows_a_stored_key(python312: Path, functions: dict[str, BuiltFunction],
                                        opt_for: dict[str, Path], aws_stack: AwsStack, tmp_path: Path) -> None:
    event = with_key(load_event("authorizer"), aws_stack.key, aws_stack.context)
    policy = run(python312, functions, opt_for, "AuthorizerFunction", event, tmp_path, aws_stack.env).response
    assert policy["principalId"] == "artifact-user"
    assert policy["policyDocument"]["Statement"][0]["Effect"] == "Allow"
    assert policy["context"] == aws_stack.context


def test_authorizer_refuses_an_unknown_key(python312: Path, functions: dict[str, BuiltFunction],
                                           opt_for: dict[str, Path], aws_stack: AwsStack, tmp_path: Path) -> None:
    invocation = run(python312, functions, opt_for, "AuthorizerFunction", load_event("authorizer"), tmp_path,
                     aws_stack.env)
    # A Deny whose context carries the 401's second sentence (template.yaml's ACCESS_DENIED response).
    answer = invocation.response
    assert answer["policyDocument"]["Statement"][0]["Effect"] == "Deny", invocation.output
    assert answer["context"]["message"] == "Authentication required. The API key is not valid.", answer


def test_api_keys_list(python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path],
                       aws_stack: AwsStack, tmp_path: Path) -> None:
    event = with_key(load_event("api_keys_list"), aws_stack.key, aws_stack.context)
    invocation = run(python312, functions, opt_for, "ApiKeysListFunction", event, tmp_path, aws_stack.env)
    assert invocation.response["statusCode"] == 200, invocation.output
    assert aws_stack.context["keyId"] in json.dumps(invocation.body()["data"])


def test_files_delete(python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path],
                      aws_stack: AwsStack, tmp_path: Path) -> None:
    from webcapture.stored_files import store_image

    with webcapture_pointed_at(aws_stack.endpoint):
        stored = store_image(user_id="artifact-user", page_url="https://example.com/", image=b"\x89PNG fake",
                             image_format="png", metadata={"width": 1, "height": 1})
    event = with_body(with_key(load_event("files_delete"), aws_stack.key, aws_stack.context),
                      fileId=stored.file_id, deleteFromStorage=True)
    invocation = run(python312, functions, opt_for, "FilesDeleteFunction", event, tmp_path, aws_stack.env)
    assert invocation.response["statusCode"] == 200, invocation.output
    s3: Any = aws_stack.client("s3")
    listed = s3.list_objects_v2(Bucket=PHYSICAL_NAMES["FilesBucket"], Prefix=stored.storage_key)
    assert listed.get("KeyCount", 0) == 0


def test_docs_function_serves_the_document_and_bundled_swagger_ui(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], tmp_path: Path
) -> None:
    from openapi_spec_validator import validate

    invocation = run(python312, functions, opt_for, "DocsFunction", load_event("docs"), tmp_path, {})
    assert invocation.response["statusCode"] == 200, invocation.output
    validate(json.loads(invocation.response["body"]))
    page = {**load_event("docs"), "resource": "/v1/docs/assets/{name}", "path": "/v1/docs/assets/swagger-ui.css"}
    styles = run(python312, functions, opt_for, "DocsFunction", page, tmp_path, {})
    assert styles.response["statusCode"] == 200, styles.output  # the asset is in the build, not fetched
    # Powertools answers a REST API with multiValueHeaders.
    headers = {**styles.response.get("headers", {}),
               **{k: v[0] for k, v in (styles.response.get("multiValueHeaders") or {}).items()}}
    assert headers["Content-Type"].startswith("text/css")


def test_method_not_allowed(python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path],
                            tmp_path: Path) -> None:
    invocation = run(python312, functions, opt_for, "MethodNotAllowedFunction", load_event("fallback"),
                     tmp_path, {})
    assert invocation.response["statusCode"] == 405
    assert invocation.body()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_markdown_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    # The whole visible page (the main-content step runs in the built ai-extract test): its link included.
    event = with_body(with_key(load_event("markdown"), aws_stack.key, aws_stack.context), url=fixture_site,
                      onlyMainContent=False)
    invocation = run(python312, functions, opt_for, "MarkdownFunction", event, tmp_path,
                     {**aws_stack.env, **BROWSER_ENV})
    assert invocation.response["statusCode"] == 200, invocation.output
    data = invocation.body()["data"]
    assert data["markdown"].startswith("# Built and running") and "日本語のテキスト 🚀" in data["markdown"]
    assert f"[Docs]({fixture_site}docs)" in data["markdown"]
    assert data["metadata"]["title"] == "Artifact fixture" and data["metadata"]["truncated"] is False
    assert_cold_start_fits(invocation, functions["MarkdownFunction"])


def test_content_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    event = with_body(with_key(load_event("content"), aws_stack.key, aws_stack.context), url=fixture_site)
    invocation = run(python312, functions, opt_for, "ContentFunction", event, tmp_path,
                     {**aws_stack.env, **BROWSER_ENV})
    assert invocation.response["statusCode"] == 200, invocation.output
    data = invocation.body()["data"]
    assert "<h1>Built and running</h1>" in data["html"] and data["metadata"]["statusCode"] == 200
    assert_cold_start_fits(invocation, functions["ContentFunction"])


def test_pdf_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    from webcapture.browser.pdf import count_pages

    event = with_body(with_key(load_event("pdf"), aws_stack.key, aws_stack.context), url=fixture_site)
    invocation = run(python312, functions, opt_for, "PdfFunction", event, tmp_path,
                     {**aws_stack.env, **BROWSER_ENV})
    assert invocation.response["statusCode"] == 200, invocation.output
    data = invocation.body()["data"]
    document = base64.b64decode(data["pdf"])
    assert document.startswith(b"%PDF-") and count_pages(document) == data["metadata"]["pages"] == 1
    assert data["permanentUrl"].startswith("https://files.artifact.test/pdfs/artifact-user/")
    s3: Any = aws_stack.client("s3")
    key = data["permanentUrl"].split("/", 3)[3]
    assert s3.get_object(Bucket=PHYSICAL_NAMES["FilesBucket"], Key=key)["Body"].read() == document
    # The bytes form: what API Gateway turns back into application/pdf bytes.
    raw = with_body(with_key(load_event("pdf"), aws_stack.key, aws_stack.context), url=fixture_site, base64=False)
    answer = run(python312, functions, opt_for, "PdfFunction", raw, tmp_path, {**aws_stack.env, **BROWSER_ENV})
    headers = answer.response.get("multiValueHeaders") or {}
    content_type = (answer.response.get("headers") or {}).get("Content-Type") or headers["Content-Type"][0]
    assert content_type == "application/pdf" and answer.response["isBase64Encoded"], answer.output
    assert base64.b64decode(answer.response["body"]).startswith(b"%PDF-")


def assert_cold_start_fits(invocation: Invocation, function: BuiltFunction) -> None:
    """The browser really came from the built layer, and what it unpacked fits the function's /tmp."""
    tmp = invocation.tmp_dir
    chromium = [p for p in tmp.glob("chromium-*/chromium") if p.is_file()]
    node = [p for p in tmp.glob("playwright-node-*/node") if p.is_file()]
    assert chromium and node, f"nothing unpacked in {tmp}: {sorted(p.name for p in tmp.iterdir())}"
    used = tree_bytes(tmp)
    # Room for one more Chromium unpack on top: a cold start cut off mid-unpack leaves its staging folder.
    reserve = tree_bytes(chromium[0].parent)
    assert used + reserve <= function.ephemeral_mb * MB, (
        f"{function.logical_id}: /tmp holds {used / MB:.0f} MB after a capture (+{reserve / MB:.0f} MB "
        f"reserve); EphemeralStorage is {function.ephemeral_mb} MB"
    )


def test_screenshot_captures_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    event = with_body(with_key(load_event("screenshot"), aws_stack.key, aws_stack.context), url=fixture_site)
    invocation = run(python312, functions, opt_for, "ScreenshotFunction", event, tmp_path,
                     {**aws_stack.env, **BROWSER_ENV})
    assert invocation.response["statusCode"] == 200, invocation.output
    data = invocation.body()["data"]
    assert data["metadata"]["format"] == "png"
    assert data["permanentUrl"].startswith("https://files.artifact.test/screenshots/artifact-user/")
    s3: Any = aws_stack.client("s3")
    key = data["permanentUrl"].split("/", 3)[3]
    image = s3.get_object(Bucket=PHYSICAL_NAMES["FilesBucket"], Key=key)["Body"].read()
    assert image.startswith(b"\x89PNG\r\n\x1a\n") and len(image) > 1000
    assert_cold_start_fits(invocation, functions["ScreenshotFunction"])


def test_links_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    event = with_body(with_key(load_event("links"), aws_stack.key, aws_stack.context), url=fixture_site)
    invocation = run(python312, functions, opt_for, "LinksFunction", event, tmp_path,
                     {**aws_stack.env, **BROWSER_ENV})
    assert invocation.response["statusCode"] == 200, invocation.output
    text = json.dumps(invocation.body()["data"])
    for href in (f"{fixture_site}docs", f"{fixture_site}pricing", "https://example.org/elsewhere"):
        assert href in text
    assert_cold_start_fits(invocation, functions["LinksFunction"])


def test_ai_extract_with_the_built_browser(
    python312: Path, functions: dict[str, BuiltFunction], opt_for: dict[str, Path], aws_stack: AwsStack,
    fixture_site: str, tmp_path: Path,
) -> None:
    with FakeOpenAI() as provider:
        provider.script(json_completion({"title": "Artifact fixture", "heading": "Built and running"}))
        event = with_body(with_key(load_event("ai_extract"), aws_stack.key, aws_stack.context), url=fixture_site)
        invocation = run(python312, functions, opt_for, "AiExtractFunction", event, tmp_path,
                         {**aws_stack.env, **BROWSER_ENV, "OPENAI_BASE_URL": provider.base_url,
                          "OPENAI_API_KEY": "sk-artifact"})
        assert invocation.response["statusCode"] == 200, invocation.output
        assert "Built and running" in json.dumps(provider.requests[0].body)
    data = json.dumps(invocation.body()["data"])
    assert '"Artifact fixture"' in data and '"Built and running"' in data
    assert_cold_start_fits(invocation, functions["AiExtractFunction"])


@pytest.mark.parametrize("name", ["ScreenshotFunction", "LinksFunction", "AiExtractFunction", "MarkdownFunction",
                                  "ContentFunction", "PdfFunction"])
def test_browser_functions_get_the_browser_layer(functions: dict[str, BuiltFunction], name: str) -> None:
    # Playwright's Node in a layer of its own: zstd for ai-extract, whose package holds the openai client.
    node = "NodeCompactLayer" if name == "AiExtractFunction" else "NodeLayer"
    assert functions[name].layers == ("SharedLayer", "BrowserLayer", node)

