"""Chromium flags and the top-level navigation rule."""

from __future__ import annotations

import pytest

from webcapture.egress import (
    SERVICE_WORKERS,
    context_options,
    hardening_args,
    navigation_allowed,
    sanitize_args,
)

PROXY = "http://127.0.0.1:40000"


def switches(args: list[str]) -> dict[str, str]:
    return {arg.split("=", 1)[0]: arg.partition("=")[2] for arg in args}


def test_all_traffic_goes_to_the_proxy_with_no_implicit_bypass() -> None:
    flags = switches(hardening_args(PROXY))
    assert flags["--proxy-server"] == PROXY
    assert flags["--proxy-bypass-list"] == "<-loopback>"
    # Chromium's own resolver answers nothing but the proxy's (literal) address.
    assert flags["--host-resolver-rules"] == "MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


def test_paths_around_the_proxy_are_closed() -> None:
    flags = switches(hardening_args(PROXY))
    assert "--disable-quic" in flags
    assert flags["--force-webrtc-ip-handling-policy"] == "disable_non_proxied_udp"
    assert "--dns-prefetch-disable" in flags


def test_no_flag_weakens_security_or_overrides_playwrights_feature_lists() -> None:
    args = hardening_args(PROXY)
    assert sanitize_args(args) == [a for a in args if a.split("=")[0] not in {
        "--proxy-server", "--proxy-bypass-list", "--host-resolver-rules"}]  # fmt: skip
    flags = switches(args)
    assert not {"--disable-web-security", "--allow-running-insecure-content", "--no-proxy-server"} & set(
        flags
    )
    assert not {"--disable-features", "--enable-features"} & set(flags)


def test_sanitize_drops_weakening_and_proxy_steering_flags_from_a_lambda_flag_set() -> None:
    lambda_flags = [
        "--allow-pre-commit-input",
        "--disable-web-security",
        "--allow-running-insecure-content",
        "--no-proxy-server",
        "--proxy-server=socks5://10.0.0.1:1080",
        "--proxy-bypass-list=*",
        "--host-resolver-rules=MAP * 10.0.0.1",
        "--single-process",
        "--headless=new",
    ]
    assert sanitize_args(lambda_flags) == ["--allow-pre-commit-input", "--single-process", "--headless=new"]
    # Our flags come after the sanitized set: with repeated switches Chromium keeps the last.
    combined = sanitize_args(lambda_flags) + hardening_args(PROXY)
    assert switches(combined)["--proxy-server"] == PROXY


def test_service_workers_are_blocked_per_context() -> None:
    assert SERVICE_WORKERS == "block"
    assert context_options() == {"service_workers": "block"}


@pytest.mark.parametrize(
    "url",
    ["http://example.com/", "https://example.com/a?b#c", "HTTPS://EXAMPLE.COM", "about:blank", "ABOUT:BLANK",
     "about:blank#top", "  https://example.com/  "],
)  # fmt: skip
def test_http_and_about_blank_may_be_top_level(url: str) -> None:
    assert navigation_allowed(url)


@pytest.mark.parametrize(
    "url",
    ["file:///etc/passwd", "FILE:///etc/passwd", "view-source:http://example.com/", "chrome://settings",
     "chrome-extension://abc/x.html", "data:text/html,<script>alert(1)</script>", "blob:https://a.test/uuid",
     "javascript:alert(1)", "java\tscript:alert(1)", "about:srcdoc", "about:config", "filesystem:http://a/x",
     "ftp://example.com/", "ws://example.com/", "devtools://devtools/x", "", "nonsense"],
)  # fmt: skip
def test_everything_else_is_refused_at_top_level(url: str) -> None:
    assert not navigation_allowed(url)
