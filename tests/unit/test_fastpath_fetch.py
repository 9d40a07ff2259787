"""The http engine's fetch (webcapture.fastpath.http_page): through the egress guard hop by hop (the canary
on 127.0.0.1 never sees a connection), at most 10 redirects, gzip/deflate/br undone within 10 MB, the
charset from the header, the BOM or a <meta>, the target's validators, conditional requests."""

from __future__ import annotations

import codecs
import time
from collections.abc import Iterator
from urllib.parse import quote

import pytest

from tests.support.egress_resolvers import MapResolver
from tests.support.egress_servers import Servers
from tests.support.fast_pages import FastPageServer
from webcapture.errors import NavigationFailed, UrlNotAllowed
from webcapture.fastpath import http_page
from webcapture.fastpath.decoding import charset_of, decode_html
from webcapture.fastpath.http_page import Validators, fetch_page

pytest_plugins = ["tests.support.egress_fixtures"]


@pytest.fixture
def site(egress_allow_public: None, egress_dns: MapResolver, egress_servers: Servers) -> Iterator[FastPageServer]:
    server = FastPageServer()
    yield server
    server.stop()
    assert egress_servers.canary.connections == 0, egress_servers.canary.requests


def _soon() -> float:
    return time.monotonic() + 10


@pytest.mark.parametrize("coding", ["", "gzip", "deflate", "br"])
def test_each_content_coding_reads_the_same_page(site: FastPageServer, coding: str) -> None:
    page = fetch_page(f"http://public.test:{site.port}/page?coding={coding}", deadline=_soon())
    assert page.status_code == 200 and "served whole" in page.html and page.title == "Fast page"
    assert site.requests[-1][1]["Accept-Encoding"] == "gzip, deflate, br"


def test_the_validators_are_reported_and_sent_back(site: FastPageServer) -> None:
    url = f"http://public.test:{site.port}/page"
    first = fetch_page(url, deadline=_soon())
    assert first.validators == Validators('"v1"', "Wed, 21 Oct 2026 07:28:00 GMT")
    again = fetch_page(url, deadline=_soon(), conditional=first.validators)
    assert again.not_modified and again.html == ""
    assert site.requests[-1][1]["If-None-Match"] == '"v1"'
    assert site.requests[-1][1]["If-Modified-Since"] == "Wed, 21 Oct 2026 07:28:00 GMT"


def test_a_redirect_to_an_internal_address_is_refused_and_never_connected(
        site: FastPageServer, egress_servers: Servers) -> None:
    inside = quote(f"http://internal.test:{egress_servers.canary.port}/secret", safe="")
    with pytest.raises(UrlNotAllowed):
        fetch_page(f"http://public.test:{site.port}/redirect?to={inside}", deadline=_soon())


def test_ten_redirects_are_followed_and_the_eleventh_is_not(site: FastPageServer) -> None:
    page = fetch_page(f"http://public.test:{site.port}/loop?to=10", deadline=_soon())
    assert page.final_url.endswith("/page") and len(page.redirects) == 10
    with pytest.raises(NavigationFailed, match="more than 10 redirects"):
        fetch_page(f"http://public.test:{site.port}/loop?to=11", deadline=_soon())


def test_credentials_go_to_the_target_origin_only(site: FastPageServer) -> None:
    from webcapture.models.requests import MarkdownRequest

    request = MarkdownRequest.model_validate({
        "url": "http://public.test/", "engine": "http", "headers": {"X-Token": "secret"},
        "cookies": [{"name": "session", "value": "abc"}], "userAgent": "fast-test", "locale": "de-DE"})
    other = quote(f"http://127.0.0.2:{site.port}/page", safe="")
    fetch_page(f"http://public.test:{site.port}/redirect?to={other}", deadline=_soon(), control=request)
    (_, first), (_, second) = site.requests[-2:]
    assert first["X-Token"] == "secret" and first["Cookie"] == "session=abc"
    assert "X-Token" not in second and "Cookie" not in second
    assert first["User-Agent"] == second["User-Agent"] == "fast-test"
    assert second["Accept-Language"] == "de-DE"


def test_a_body_past_the_limit_is_cut_with_a_warning(site: FastPageServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_page, "MAX_BODY_BYTES", 500)
    for coding in ("", "gzip", "br"):
        page = fetch_page(f"http://public.test:{site.port}/page?coding={coding}", deadline=_soon())
        assert len(page.html) == 500 and page.warnings, coding


@pytest.mark.parametrize(("body", "content_type", "expected"), [
    (b"<meta charset='iso-8859-1'>" + "café".encode("latin-1"), "text/html", "iso8859-1"),
    (b"<meta http-equiv='Content-Type' content='text/html; charset=windows-1251'>", "text/html", "cp1251"),
    (codecs.BOM_UTF8 + "<meta charset=latin-1>café".encode(), "text/html; charset=latin-1", "utf-8"),
    ("café".encode("latin-1"), "text/html; charset=ISO-8859-1", "iso8859-1"),
    (b"plain", "text/html", "utf-8"),
    (b"<meta charset=no-such-charset>", "text/html", "utf-8"),
    # Named nowhere: UTF-8 when the bytes are (cut inside a character at the byte limit too), else
    # windows-1252, as Chromium reads a page that names no charset.
    ("crème …".encode(), "text/html", "utf-8"),
    ("crème …".encode()[:-1], "text/html", "utf-8"),
    ("crème “brûlée” …".encode("cp1252"), "text/html", "cp1252"),
])
def test_the_charset_comes_from_the_bom_then_the_header_then_a_meta(
        body: bytes, content_type: str, expected: str) -> None:
    assert charset_of(body, content_type)[0] == expected
    assert "\ufffd" not in decode_html(body, content_type).rstrip("\ufffd")  # but a character cut in two
