"""One spelling per page (docs/crawl-and-map.md#crawl-and-map), so a page is listed or crawled once however it
is linked.

The canonical form: scheme and host lower-cased (the host exactly as a browser reads it, so `0x7f.1` and
`127.0.0.1` are one host), the default port and the fragment dropped, an empty path as `/`, dot segments
resolved, characters a URL cannot carry percent-encoded and percent escapes in upper case, and the query's
parameters sorted (or the query dropped with `drop_query`). Parameters keep their own encoding: `a=1&b=2`
and `b=2&a=1` are one page, `a=%31` stays as written.

A sitemap holds up to 50,000 URLs, nearly all of one host in plain ASCII: those take a fast path (one
regular expression, the host parsed once per spelling, and once a `scheme://authority` spelling is known
good, only the rest of the URL is checked, a sitemap's batch at a time); anything else goes through the
browser-exact parser the egress guard uses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Final
from urllib.parse import quote

from webcapture.egress.hosts import DEFAULT_PORTS, HostError, host_text, parse_url

# Longer URLs are not listed or followed: no browser or server handles them reliably.
MAX_URL_CHARS: Final = 2048

# http(s)://authority/path?query#fragment in plain ASCII, nothing a browser would read differently
# (no backslash, no whitespace or control character, no "@" or percent sign in the authority).
_PLAIN = re.compile(r"(https?)://([^/?#\\@%\s]+)(/[^?#\\\s]*)?(?:\?([^#\\\s]*))?(?:#.*)?",
                    re.IGNORECASE | re.DOTALL)
# The common case, whole: a host name or IPv4 address, a path of characters that need no quoting.
_SIMPLE = re.compile(r"(https?)://([a-z0-9.\-]+(?::[0-9]{1,5})?)(/[a-z0-9/!$&'()*+,;=:@\-_~.]*)?"
                     r"(?:\?([^#\\\s]*))?(?:#.*)?", re.IGNORECASE | re.ASCII | re.DOTALL)
# What follows a known `scheme://authority` in the common case: the path, query and fragment of _SIMPLE.
_SIMPLE_REST = re.compile(r"(/[a-z0-9/!$&'()*+,;=:@\-_~.]*)(?:\?([^#\\\s]*))?(?:#.*)?",
                          re.IGNORECASE | re.ASCII | re.DOTALL)
# The characters of _SIMPLE's scheme, authority and path: a URL of these alone after a known authority
# is a path with nothing to quote, no query and no fragment (deleting them, in C, leaves nothing).
_PATH_BYTES: Final = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/!$&'()*+,;=:@-_~."
# `scheme://authority` exactly as written -> its canonical origin, for spellings _SIMPLE matched and that
# are valid hosts only: a key is never a prefix of a longer authority, since the next character is "/".
_KNOWN_PREFIXES: dict[str, str] = {}
_MAX_KNOWN_PREFIXES: Final = 4096
_SAFE_PATH: Final = "/!$&'()*+,;=:@-._~%"
_SAFE_QUERY: Final = "/?!$&'()*+,;=:@-._~%"
_ESCAPE = re.compile(r"%[0-9a-fA-F]{2}")
_NEEDS_QUOTING = re.compile(r"[^A-Za-z0-9/!$&'()*+,;=:@\-._~%?]|%(?![0-9A-Fa-f]{2})")


@lru_cache(maxsize=4096)
def _origin(scheme: str, authority: str) -> str | None:
    """`scheme://host[:port]` canonical, or None when the authority is not a valid host."""
    try:
        target = parse_url(f"{scheme}://{authority}/")
    except HostError:
        return None
    host = host_text(target.host, brackets=True)
    port = "" if DEFAULT_PORTS[target.scheme] == target.port else f":{target.port}"
    return f"{target.scheme}://{host}{port}"


def _clean(part: str, safe: str) -> str:
    if _NEEDS_QUOTING.search(part):
        # A lone "%" is a literal percent sign; the rest, as browsers send them, percent-encoded as UTF-8.
        part = re.sub(r"%(?![0-9A-Fa-f]{2})", "%25", part)
        part = quote(part, safe=safe, encoding="utf-8", errors="surrogatepass")
    if "%" in part:
        part = _ESCAPE.sub(lambda match: match.group(0).upper(), part)
    return part


def _without_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4."""
    segments = path.split("/")
    kept: list[str] = []
    for segment in segments[1:]:
        if segment == "..":
            if kept:
                kept.pop()
        elif segment != ".":
            kept.append(segment)
    ends_in_dir = segments[-1] in (".", "..")
    return "/" + "/".join(kept) + ("/" if ends_in_dir and kept else "")


def _path(path: str) -> str:
    path = _clean(path, _SAFE_PATH) if path else "/"
    if "/." in path:
        path = _without_dot_segments(path)
    return path


def _query(query: str, drop_query: bool) -> str:
    if drop_query or not query:
        return ""
    parameters = sorted(part for part in _clean(query, _SAFE_QUERY).split("&") if part)
    return "?" + "&".join(parameters) if parameters else ""


def canonical_url(url: str, *, drop_query: bool = False) -> str | None:
    """The canonical spelling of an absolute http(s) URL; None for anything else (other schemes, a
    host no browser would accept, a URL over MAX_URL_CHARS)."""
    if len(url) > MAX_URL_CHARS:
        return None
    # "http://h/" has its first "/" after the authority at 8 or later; "https://h/" at 9 or later.
    cut = url.find("/", 8)
    prefix = url[:cut] if cut > 0 else ""
    known = _KNOWN_PREFIXES.get(prefix)
    if known is not None:
        if url.isascii() and not url.encode().translate(None, _PATH_BYTES) and "/." not in url:
            # No query, no fragment, nothing to quote or resolve: the URL as written after its origin.
            return url if known == prefix else known + url[cut:]
        if (rest := _SIMPLE_REST.fullmatch(url, cut)) is not None:
            path, query = rest.groups()
            if not query or drop_query:
                return known + (_without_dot_segments(path) if "/." in path else path)
            canonical = known + _path(path) + _query(query, drop_query)
            return canonical if len(canonical) <= MAX_URL_CHARS else None
    simple = _SIMPLE.fullmatch(url)
    if simple is not None:
        scheme, authority, path, query = simple.groups()
        origin = _origin(scheme.lower(), authority)
        if origin is not None and path:
            if len(_KNOWN_PREFIXES) >= _MAX_KNOWN_PREFIXES:
                _KNOWN_PREFIXES.clear()
            _KNOWN_PREFIXES[url[: simple.end(2)]] = origin
        if origin is not None and (not query or drop_query):
            if not path:
                return origin + "/"
            return origin + (_without_dot_segments(path) if "/." in path else path)
    elif (plain := _PLAIN.fullmatch(url) if url.isascii() and url.isprintable() else None) is not None:
        scheme, authority, path, query = plain.groups()
        origin = _origin(scheme.lower(), authority)
    else:
        return parsed_canonical_url(url, drop_query=drop_query)
    if origin is None:
        return None
    canonical = origin + _path(path or "") + _query(query or "", drop_query)
    return canonical if len(canonical) <= MAX_URL_CHARS else None


def canonical_urls(urls: Sequence[str], *, drop_query: bool = False) -> list[str | None]:
    """canonical_url of each URL, in order. A sitemap's batch of plain URLs on authorities already met is
    checked in one pass over all of them; then each is its known origin and its path as written."""
    joined = "\n".join(urls)
    if (not joined.isascii() or joined.encode().translate(None, _PATH_BYTES + b"\n") or "/." in joined
            or joined.count("\n") != len(urls) - 1):  # a URL holding a line break is no plain URL
        return [canonical_url(url, drop_query=drop_query) for url in urls]
    known_prefixes = _KNOWN_PREFIXES
    canonicals: list[str | None] = []
    for url in urls:
        cut = url.find("/", 8)
        prefix = url[:cut] if cut > 0 else ""
        known = known_prefixes.get(prefix)
        if known is None or len(url) > MAX_URL_CHARS:
            canonicals.append(canonical_url(url, drop_query=drop_query))
        else:
            canonicals.append(url if known == prefix else known + url[cut:])
    return canonicals


def parsed_canonical_url(url: str, *, drop_query: bool = False) -> str | None:
    """canonical_url by the general path alone: the browser-exact parser for every URL. The fast paths
    of canonical_url give what this gives."""
    if len(url) > MAX_URL_CHARS:
        return None
    try:
        target = parse_url(url.strip())
    except HostError:
        return None
    if target.scheme not in ("http", "https"):
        return None
    path, _, query = target.path.partition("?")
    origin = _origin(target.scheme, target.authority)
    if origin is None:
        return None
    canonical = origin + _path(path) + _query(query, drop_query)
    return canonical if len(canonical) <= MAX_URL_CHARS else None


def host_of(canonical: str) -> str:
    """The host of a canonical URL (no port, IPv6 in brackets)."""
    authority = canonical.split("/", 3)[2]
    if authority.startswith("["):
        return authority[: authority.index("]") + 1]
    return authority.rsplit(":", 1)[0] if ":" in authority else authority


def path_of(canonical: str) -> str:
    """The path of a canonical URL, without the query."""
    rest = canonical.split("/", 3)
    return "/" + (rest[3] if len(rest) > 3 else "").split("?", 1)[0]


def origin_of(canonical: str) -> str:
    return "/".join(canonical.split("/", 3)[:3])
