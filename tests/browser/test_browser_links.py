"""The links core (docs/api.md#links) against real Chromium and the loopback fixture pages."""

from __future__ import annotations

import pytest

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from webcapture.browser import Links, collect_links
from webcapture.browser.links import parse_links
from webcapture.models.requests import LinksRequest


def links(url: str, **body: object) -> Links:
    return collect_links(LinksRequest.model_validate({"url": url, **body}))


def expected_fixture_links(port: int) -> list[tuple[str, str, bool]]:
    """links.html, served from localhost, in document order: (url, text, internal)."""
    base = f"http://localhost:{port}"
    return [
        (f"{base}/about", "About us", True),  # whitespace collapsed; the later duplicate is dropped
        (f"{base}/contact.html", "Contact", True),  # relative, fragment stripped
        ("http://www.localhost/home", "Home (www)", True),  # www. ignored: same site
        ("https://example.com/page?q=1", "Example", False),  # query kept, fragment stripped
        (f"{base}/links.html", "Jump", True),  # "#section" and "#" are the page itself
        # javascript:, mailto:, tel: and ftp: links are not listed
        (f"{base}/empty-first", "Filled later", True),  # first non-empty text, first position
        (f"{base}/aria", "Aria label", True),  # no text (an image): aria-label, collapsed
        (f"{base}/titled", "Title text", True),  # no text: title
        (f"{base}/hidden", "", True),  # display:none has no visible text
        ("https://sub.localhost/x", "Sub", False),  # another host, even a subdomain, is external
        ("http://example.org/proto-relative", "Protocol-relative", False),
        (f"{base}/area-link", "Area title", True),  # <area href>
        (f"{base}/in-frame", "In frame", True),  # same-origin frame, in the frame's place
        (f"{base}/sub/relative", "Relative in frame", True),  # resolved against the frame's URL
        # the cross-origin frame's link is not listed
        ("https://example.com/Case", "Case sensitive path", False),  # host lowercased, path kept
        (f"{base}/spaces", "Spaces", True),  # href trimmed
        (f"{base}/svg-link", "SVG link", True),  # SVG <a>
        (f"{base}/invisible", "", True),  # visibility:hidden: rendered, but no visible text
    ]


def test_fixture_links_exactly(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/links.html", host="localhost")
    result = links(url)
    assert [(link.url, link.text, link.internal) for link in result.links] == expected_fixture_links(
        fixture_server.port
    )
    assert (result.total_links, result.internal_links, result.external_links) == (18, 14, 4)
    assert result.final_url == result.requested_url == url
    assert result.status_code == 200


def test_include_external_false_keeps_internal_links_only(fixture_server: FixtureHttpServer) -> None:
    result = links(fixture_server.url("/links.html", host="localhost"), includeExternal=False)
    expected = [entry for entry in expected_fixture_links(fixture_server.port) if entry[2]]
    assert [(link.url, link.text, link.internal) for link in result.links] == expected
    assert (result.total_links, result.internal_links, result.external_links) == (14, 14, 0)


def test_internal_is_judged_against_the_final_url(fixture_server: FixtureHttpServer) -> None:
    # Loaded as 127.0.0.1: relative links are internal, the www.localhost link is now another host, and
    # the frame that was cross-origin (127.0.0.1) is now same-origin, so its link is listed too.
    port = fixture_server.port
    result = links(fixture_server.url("/links.html"))
    by_url = {link.url: link.internal for link in result.links}
    assert by_url[f"http://127.0.0.1:{port}/about"] is True
    assert by_url["http://www.localhost/home"] is False
    assert by_url[f"http://127.0.0.1:{port}/cross-link"] is True
    assert (result.total_links, result.internal_links, result.external_links) == (19, 14, 5)


def test_redirected_page_lists_the_final_documents_links(fixture_server: FixtureHttpServer) -> None:
    result = links(fixture_server.url("/redirect-to?url=/links.html", host="localhost"))
    assert result.final_url == fixture_server.url("/links.html", host="localhost")
    assert [(link.url, link.text, link.internal) for link in result.links] == expected_fixture_links(
        port=fixture_server.port
    )


def test_ten_thousand_links(fixture_server: FixtureHttpServer) -> None:
    port = fixture_server.port
    expected = [
        (f"https://ext{i}.example/", f"External {i}", False)
        if i % 10 == 9
        else (f"http://127.0.0.1:{port}/p/{i}", f"Link {i}", True)
        for i in range(10_000)
    ]
    result = links(fixture_server.url("/many-links?n=10000"))
    assert [(link.url, link.text, link.internal) for link in result.links] == expected
    assert (result.total_links, result.internal_links, result.external_links) == (10_000, 9_000, 1_000)

    internal_only = links(fixture_server.url("/many-links?n=10000"), includeExternal=False)
    assert (internal_only.total_links, internal_only.external_links) == (9_000, 0)


@pytest.mark.parametrize("wait_time", [0, 200])
def test_wait_time_is_accepted(fixture_server: FixtureHttpServer, wait_time: int) -> None:
    result = links(fixture_server.url("/links.html", host="localhost"), waitTime=wait_time)
    assert result.total_links == 18


def test_a_lone_surrogate_in_a_link_text_becomes_a_replacement_character(
    fixture_server: FixtureHttpServer,
) -> None:
    result = links(fixture_server.url("/surrogate.html"))
    assert [(link.url, link.text) for link in result.links] == [
        (fixture_server.url("/plain.html"), "link \ufffd text")
    ]


def test_parsed_links_keep_whole_pairs_and_mend_only_lone_halves() -> None:
    # As JSON.stringify writes them: a whole pair as the character, a lone half as an escape.
    whole = parse_links('["https://a.example/", "rocket \U0001f680", 1]')
    assert whole == (["https://a.example/"], ["rocket \U0001f680"], [1])
    half = parse_links('["https://a.example/", "half \\ud83d", 0, "https://b.example/", "\\\\ud83d", 1]')
    assert half == (["https://a.example/", "https://b.example/"], ["half \ufffd", "\\ud83d"], [0, 1])


def test_an_extraction_that_is_not_triples_is_refused() -> None:
    with pytest.raises(ValueError, match="triples"):
        parse_links('["https://a.example/", "text"]')
