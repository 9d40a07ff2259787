"""check_target: the fast refusal at the API edge, before any browser work."""

from __future__ import annotations

import pytest

from tests.support.egress_resolvers import MapResolver
from webcapture.egress import RefusalLog, check_target
from webcapture.errors import NavigationFailed, UrlNotAllowed

pytest_plugins = ["tests.support.egress_fixtures"]


@pytest.fixture(autouse=True)
def _names(egress_dns: MapResolver) -> MapResolver:
    return egress_dns


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1/", "loopback"),
        ("http://2130706433/", "loopback"),
        ("http://0177.0.0.1/", "loopback"),
        ("http://0x7f.0.0.1/", "loopback"),
        ("http://0x7f000001/", "loopback"),
        ("http://127.1/", "loopback"),
        ("http://[::1]/", "loopback"),
        ("http://[::ffff:127.0.0.1]/", "loopback"),
        ("http://[64:ff9b::7f00:1]/", "loopback"),
        ("http://[2002:7f00:1::]/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://0/", "unspecified"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fe80::1]/", "link-local"),
        ("http://10.0.0.1/", "private"),
        ("http://100.64.0.1/", "cgnat"),
        ("http://[fd00::1]/", "unique-local"),
        ("http:127.0.0.1", "loopback"),
        ("http://public.test@127.0.0.1/", "loopback"),
        ("http://127.0.0.1#@public.test/", "loopback"),
        ("http://internal.test/", "loopback"),
        ("http://metadata.test/", "link-local"),
        ("http://mixed.test/", "loopback"),
        ("http://v6-loopback.test/", "loopback"),
        ("http://mapped.test/", "loopback"),
        ("http://localhost:8080/", "loopback"),
        ("http://app.localhost/", "loopback"),
        ("file:///etc/passwd", "scheme"),
        ("view-source:http://example.test/", "scheme"),
        ("chrome://settings", "scheme"),
        ("data:text/html,<h1>x</h1>", "scheme"),
        ("blob:http://example.test/uuid", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("ftp://example.test/", "scheme"),
        ("ws://example.test/", "scheme"),
        ("http://exa mple.test/", "invalid-host"),
        ("http://256.1.1.1/", "invalid-host"),
        ("not a url", "invalid-url"),
        ("https://example.test:22/", "port"),
    ],
)
def test_internal_and_non_http_targets_are_refused(url: str, reason: str, refusals: RefusalLog) -> None:
    with pytest.raises(UrlNotAllowed):
        check_target(url)
    assert [(r.reason, r.stage, r.url) for r in refusals.refusals] == [(reason, "edge", url)]


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/",
        "http://[2606:4700:4700::1111]/",
        "https://example.test/path?q=1",
        "http://example.test:8080/",
        "https://example.test:8443/",
        "http://public.test\\@127.0.0.1/",  # the host is public.test: browsers end the host at "\"
        "HTTPS://EXAMPLE.TEST",
    ],
)
def test_public_targets_pass(url: str, egress_allow_public: None, refusals: RefusalLog) -> None:
    check_target(url)
    assert len(refusals) == 0


def test_messages_name_the_given_host_but_never_a_resolved_address() -> None:
    with pytest.raises(UrlNotAllowed) as by_name:
        check_target("http://internal.test/")
    assert "internal.test" in by_name.value.message and "127.0.0.1" not in by_name.value.message
    with pytest.raises(UrlNotAllowed) as by_literal:
        check_target("http://0x7f.1/")
    assert "127.0.0.1" in by_literal.value.message and "loopback" in by_literal.value.message
    with pytest.raises(UrlNotAllowed) as by_scheme:
        check_target("file:///etc/passwd")
    assert "http" in by_scheme.value.message


def test_a_name_that_does_not_resolve_is_a_navigation_failure() -> None:
    with pytest.raises(NavigationFailed) as caught:
        check_target("https://nowhere.test/")
    assert "ERR_NAME_NOT_RESOLVED" in caught.value.message and caught.value.status == 502


def test_the_edge_alone_cannot_stop_rebinding(egress_allow_public: None, egress_dns: MapResolver) -> None:
    # The edge resolves once and sees the public first answer; the browser's later lookup would get the
    # internal one. That is why every browser request goes through the proxy (see test_egress_proxy).
    check_target("http://rebind.test/")
    with pytest.raises(UrlNotAllowed):
        check_target("http://rebind.test/")
    assert egress_dns.calls["rebind.test"] == 2


@pytest.mark.parametrize(
    "url", ["http://0x7f.1/", "http://2130706433/", "http://[::ffff:127.0.0.1]/", "http://169.254.169.254/"]
)
def test_a_literal_address_is_refused_without_a_lookup(egress_dns: MapResolver, url: str) -> None:
    # What makes the refusal of an obviously internal target fast: no DNS, no browser, nothing but the
    # parse and the check (its cost next to a capture is in docs/benchmarks.md).
    with pytest.raises(UrlNotAllowed):
        check_target(url)
    assert sum(egress_dns.calls.values()) == 0
