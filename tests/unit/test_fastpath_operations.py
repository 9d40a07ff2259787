"""The http and auto engines through the operations (metering against moto, the egress guard, the loopback
page server): the same answers' shape with `metadata.engine` and the target's validators, the 422 for a
browser-only field, and no browser ever started or waited for on the http path."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.egress_resolvers import MapResolver
from tests.support.egress_servers import Servers
from tests.support.fast_pages import FastPageServer
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.browser import lifecycle
from webcapture.errors import NavigationFailed, RequestValidationError, TargetHttpError
from webcapture.models.requests import ContentRequest, LinksRequest, MarkdownRequest
from webcapture.models.site_requests import CrawlRequest
from webcapture.operations.collect_page_links import collect_page_links
from webcapture.operations.page_markdown import page_markdown
from webcapture.operations.rendered_content import page_content
from webcapture.site.crawl_page import crawl_page
from webcapture.validation import validate_request

pytest_plugins = ["tests.support.egress_fixtures"]
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def site(egress_allow_public: None, egress_dns: MapResolver, egress_servers: Servers) -> Iterator[FastPageServer]:
    server = FastPageServer()
    yield server
    server.stop()


@pytest.fixture
def no_browser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("the http engine reached for the browser")

    monkeypatch.setattr(lifecycle, "host", refuse)


@pytest.fixture
def caller(aws_resources: None) -> Caller:
    _, record = api_keys.create_key("user-1", "k", remaining=20)
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash)


def test_markdown_over_http_is_the_page_with_its_engine_and_validators(
        site: FastPageServer, caller: Caller, no_browser: None) -> None:
    request = MarkdownRequest.model_validate({"url": f"http://public.test:{site.port}/page?coding=br",
                                              "engine": "http"})
    data = page_markdown(caller, request)
    assert "every word a reader sees" in data["markdown"] and "[A]" not in data["markdown"]
    metadata = data["metadata"]
    assert metadata["engine"] == "http" and metadata["statusCode"] == 200 and metadata["title"] == "Fast page"
    assert metadata["etag"] == '"v1"' and metadata["lastModified"] == "Wed, 21 Oct 2026 07:28:00 GMT"
    whole = page_markdown(caller, request.model_copy(update={"onlyMainContent": False}))
    assert "[A]" in whole["markdown"]


def test_auto_answers_a_static_page_without_the_browser(site: FastPageServer, caller: Caller,
                                                        no_browser: None) -> None:
    request = MarkdownRequest.model_validate({"url": f"http://public.test:{site.port}/page", "engine": "auto"})
    assert page_markdown(caller, request)["metadata"]["engine"] == "http"


def test_content_and_links_over_http(site: FastPageServer, caller: Caller, no_browser: None) -> None:
    url = f"http://public.test:{site.port}/page?coding=gzip"
    content = page_content(caller, ContentRequest.model_validate({"url": url, "engine": "http"}))
    assert content["html"].startswith("<!doctype html>") and content["metadata"]["engine"] == "http"
    links = collect_page_links(caller, LinksRequest.model_validate({"url": url, "engine": "http"}))
    assert [link["url"] for link in links["links"]] == [
        f"http://public.test:{site.port}/a", f"http://public.test:{site.port}/b", "https://other.test/c"]
    assert links["metadata"]["internalLinks"] == 2 and links["metadata"]["engine"] == "http"
    inside = collect_page_links(caller, LinksRequest.model_validate({"url": url, "engine": "http",
                                                                     "includeExternal": False}))
    assert inside["metadata"]["totalLinks"] == 2


# The first bytes of a PNG and of a PDF: what a text decoding of them would have put in the Markdown.
_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x04\x00gnome-screenshot" + bytes(range(256))
_PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\n"


@pytest.mark.parametrize("engine", ["http", "auto"])
def test_an_image_served_alone_is_the_image_without_the_browser(
        site: FastPageServer, caller: Caller, no_browser: None, engine: str) -> None:
    site.pages["/figure.png"] = (_PNG, "image/png", "")
    url = f"http://public.test:{site.port}/figure.png"
    data = page_markdown(caller, MarkdownRequest.model_validate({"url": url, "engine": engine}))
    assert data["markdown"] == f"![]({url})" and data["metadata"]["engine"] == "http"
    page = crawl_page(url, 1, CrawlRequest.model_validate({"url": url, "engine": engine,
                                                          "formats": ["markdown", "links"]}))
    assert page.data["markdown"] == f"![]({url})" and page.data["links"] == [] and page.links == []


def test_a_document_that_is_no_page_is_navigation_failed_over_http(
        site: FastPageServer, caller: Caller, no_browser: None) -> None:
    site.pages["/manual.pdf"] = (_PDF, "application/pdf", "")
    site.pages["/data.json"] = (b'{"answer": "<42>"}', "application/json; charset=utf-8", "")
    url = f"http://public.test:{site.port}/manual.pdf"
    with pytest.raises(NavigationFailed, match="application/pdf"):
        page_markdown(caller, MarkdownRequest.model_validate({"url": url, "engine": "http"}))
    with pytest.raises(NavigationFailed, match="application/pdf"):
        crawl_page(url, 1, CrawlRequest.model_validate({"url": url, "engine": "http"}))
    data = page_markdown(caller, MarkdownRequest.model_validate(
        {"url": f"http://public.test:{site.port}/data.json", "engine": "http"}))
    # JSON is text: shown by Chromium in a <pre>, and so read (a tag-like word in it is not a tag)
    assert data["markdown"] == '```\n{"answer": "<42>"}\n```'


def test_fail_on_status_applies_over_http(site: FastPageServer, caller: Caller, no_browser: None) -> None:
    request = MarkdownRequest.model_validate({"url": f"http://public.test:{site.port}/missing",
                                              "engine": "http", "failOnStatus": [404]})
    with pytest.raises(TargetHttpError):
        page_markdown(caller, request)


@pytest.mark.parametrize(("field", "value"), [
    ("actions", [{"type": "click", "selector": "#more"}]), ("waitForSelector", "#ready"), ("scrollPage", True),
    ("hideSelectors", [".ad"]), ("blockCookieBanners", True), ("device", "iPhone 15 Pro"),
    ("colorScheme", "dark"), ("addStyleTag", [{"content": "body{}"}]),
    ("addScriptTag", [{"content": "1"}]), ("waitUntil", "networkidle0"),
    ("profile", {"id": "prof_0123456789abcdef"}),
])
def test_a_browser_only_field_with_http_is_a_422_naming_it(field: str, value: Any) -> None:
    with pytest.raises(RequestValidationError) as refused:
        validate_request(MarkdownRequest, {"url": "https://example.com/", "engine": "http", field: value})
    (issue,) = refused.value.issues
    assert issue["code"] == "custom" and issue["path"] == [field] and "needs a browser" in issue["message"]
    # auto and browser take it (auto renders)
    for engine in ("auto", "browser"):
        validate_request(MarkdownRequest, {"url": "https://example.com/", "engine": engine, field: value})


def test_a_crawl_defaults_to_auto_and_refuses_screenshots_over_http() -> None:
    assert validate_request(CrawlRequest, {"url": "https://example.com/"}).engine == "auto"
    assert validate_request(MarkdownRequest, {"url": "https://example.com/"}).engine == "browser"
    with pytest.raises(RequestValidationError) as refused:
        validate_request(CrawlRequest, {"url": "https://example.com/", "engine": "http",
                                        "formats": ["markdown", "screenshot"]})
    assert refused.value.issues[0]["path"] == ["formats"]
    assert validate_request(CrawlRequest, {"url": "https://example.com/", "limit": 100_000}).limit == 100_000


def test_an_http_answer_never_imports_or_launches_the_browser() -> None:
    """In a fresh interpreter where importing Playwright, webcapture.browser or webcapture.warm_start fails:
    the endpoints' operations and the crawl worker import, and an http answer and an http crawl page are
    made, so nothing on the http path could have unpacked or launched Chromium."""
    script = textwrap.dedent("""
        import importlib.abc, sys, threading

        class Refuse(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name.split(".")[0] == "playwright" or name.startswith(("webcapture.browser",
                                                                          "webcapture.warm_start")):
                    raise ImportError(f"the http path imported {name}")

        sys.meta_path.insert(0, Refuse())
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from webcapture.fastpath.page_source import fetched_for
        from webcapture.operations.fetched_markdown import fetched_markdown
        from webcapture.models.requests import MarkdownRequest
        from webcapture.models.site_requests import CrawlRequest
        from webcapture.operations import (collect_page_links, extract_from_page, page_markdown,
                                           rendered_content)
        from webcapture.site import crawl_worker
        from webcapture.site.crawl_page import crawl_page

        class H(BaseHTTPRequestHandler):
            def do_GET(self):
                body = b"<title>t</title><main><p>" + b"static words " * 50 + b"</p></main>"
                self.send_response(200); self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            def log_message(self, *a): pass

        server = ThreadingHTTPServer(("127.0.0.2", 0), H)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        request = MarkdownRequest.model_validate({"url": f"http://127.0.0.2:{server.server_address[1]}/",
                                                  "engine": "http"})
        page = fetched_for(request, request.url)
        answer = fetched_markdown(page, request)
        assert "static words" in answer["markdown"], answer
        crawled = crawl_page(request.url, 0, CrawlRequest.model_validate({"url": request.url, "engine": "http"}))
        assert "static words" in crawled.data["markdown"], crawled
        assert crawled.data["metadata"]["engine"] == "http", crawled
        loaded = sorted(m for m in sys.modules if m.startswith(("playwright", "webcapture.browser",
                                                                "webcapture.warm_start")))
        print("LOADED", loaded)
    """)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{REPO / 'layers' / 'shared'}",
           "WEBCAPTURE_EGRESS_ALLOW": "127.0.0.2/32", "AWS_DEFAULT_REGION": "us-east-1"}
    ran = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    assert "LOADED []" in ran.stdout, ran.stdout
