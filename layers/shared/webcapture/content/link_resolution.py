"""A page's links made absolute: `urllib.parse.urljoin(base, href)` exactly, for one base and many hrefs.

A documentation page links hundreds of times, mostly to a few hundred distinct targets, and urljoin
parses the base again for every one of them and then the result once more to read its scheme: a fifth of
a crawled page's conversion. Here the base is parsed once, each distinct href resolved once, and the two
commonest forms (a fragment, `#name`, and a plain relative path, `../library/os.html#os.path`) take a
short path that follows urljoin's steps for exactly those forms. Everything else goes to urljoin itself.
tests/unit/test_link_resolution.py holds the two to the same answer on real sites' hrefs and on
generated ones.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import urljoin, urlparse, urlsplit, urlunparse, uses_netloc, uses_relative

# A relative path with nothing urlparse would read as scheme, authority, parameters or query (no ":",
# ";", "?", not "//" first), then an optional fragment. urlparse removes tabs and line breaks anywhere:
# they are kept out of both parts, and such an href takes urljoin's way.
_PLAIN_PATH = re.compile(r"(?!//)([A-Za-z0-9_.~%!$&'()*+,=@/-]+)(#[^\t\r\n]*)?")
_FRAGMENT = re.compile(r"#[^\t\r\n]*")
# Distinct hrefs a resolver remembers: a large documentation page has a few thousand; a page of a million
# distinct links is still resolved, without keeping all of them once the page is done (resolver_for).
REMEMBERED_HREFS = 20_000


class LinkResolver:
    """`resolve(href)`: urljoin(base, href) and that URL's scheme, lower-cased; None for an href no URL
    parser reads ("http://[::1"): it links nowhere."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._known: dict[str, tuple[str, str] | None] = {}
        try:
            scheme, netloc, path, params, query, _ = urlparse(base)
        except ValueError:  # a base no URL parser reads: every href goes to urljoin, which says so
            scheme = netloc = path = params = query = ""
        # The short ways only where urljoin treats the base as a hierarchical URL with a host.
        self._short = bool(scheme in uses_relative and scheme in uses_netloc and netloc)
        self._scheme, self._netloc = scheme, netloc
        self._unfragmented = urlunparse((scheme, netloc, path, params, query, ""))
        directory = path.split("/")
        if directory[-1] != "":
            del directory[-1]  # the base's last segment is a file, not a folder
        self._directory = directory

    def resolve(self, href: str) -> tuple[str, str] | None:
        if href in self._known:
            return self._known[href]
        answer = self._short_way(href) if self._short else None
        if answer is None:
            try:
                absolute = urljoin(self.base, href)
                answer = (absolute, urlsplit(absolute).scheme.lower())
            except ValueError:
                answer = None
        if len(self._known) < REMEMBERED_HREFS:
            self._known[href] = answer
        return answer

    def _short_way(self, href: str) -> tuple[str, str] | None:
        if href[:1] == "#":
            if not _FRAGMENT.fullmatch(href):
                return None
            # urljoin keeps the base's path, parameters and query; an empty fragment adds nothing.
            return (self._unfragmented + href if len(href) > 1 else self._unfragmented), self._scheme
        plain = _PLAIN_PATH.fullmatch(href)
        if plain is None:
            return None
        path, fragment = plain.group(1), plain.group(2) or ""
        if path[:1] == "/":
            segments = path.split("/")
        else:
            segments = self._directory + path.split("/")
            segments[1:-1] = filter(None, segments[1:-1])
        resolved: list[str] = []
        for segment in segments:
            if segment == "..":
                if resolved:
                    resolved.pop()
            elif segment != ".":
                resolved.append(segment)
        if segments[-1] in (".", ".."):
            resolved.append("")
        joined = "/".join(resolved) or "/"
        if joined[:1] != "/":
            joined = "/" + joined
        # urljoin takes the base's parameters only for an empty path: a path here has none (no ";").
        url = f"{self._scheme}://{self._netloc}{joined}"
        return (url + fragment if len(fragment) > 1 else url), self._scheme


@lru_cache(maxsize=4)
def resolver_for(base: str) -> LinkResolver:
    """One resolver per base, shared by the steps that read the same page's links (the crawl's links, then
    its Markdown): a few recent bases, so what is kept stays a few pages' worth."""
    return LinkResolver(base)
