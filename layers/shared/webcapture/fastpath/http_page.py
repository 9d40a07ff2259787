"""A page fetched once over HTTP(S) through the egress guard, as the `http` engine reads it
(docs/fast-path.md#the-http-fetch).

The fetch is egress.fetch's: every hop (the URL and each redirect, at most 10) parsed, resolved once, judged
by the policy, and connected to the address that was checked. The caller's page-control fields that mean
something without a browser go with it: `headers` (to the target's origin, or every hop with
`headersScope: all`), `cookies` and `authenticate` (to the target's origin only), `userAgent`, `locale`
(Accept-Language). The body is read up to 10 MB once decoded (gzip, deflate, br), and made text with the
charset the header, the byte-order mark or a `<meta>` names; what a known generator's script or stylesheet
hides on the rendered page is hidden on it (fastpath.rendered_state). An image or a text served alone
is read as Chromium shows it: a document holding the image (image_document), the text in a `<pre>`
(text_document).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from dataclasses import dataclass
from html import escape, unescape
from typing import Final

from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationFailed, UrlNotAllowed
from webcapture.fastpath.decoding import (
    ACCEPT_ENCODING,
    BrokenCoding,
    DecodedBody,
    UnknownCoding,
    decode_html,
)
from webcapture.fastpath.rendered_state import as_rendered
from webcapture.models.page_control import PageControl
from webcapture.unicode_text import well_formed

MAX_REDIRECTS: Final = 10
MAX_BODY_BYTES: Final = 10 * 1024 * 1024
# On the wire: a compressed page of 10 MB is far smaller; more than this is not a page.
MAX_WIRE_BYTES: Final = 20 * 1024 * 1024
# Chrome's own, so a site answers the fast path as it answers the browser.
DEFAULT_USER_AGENT: Final = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                             "Chrome/131.0.0.0 Safari/537.36")
_ACCEPT: Final = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
_TITLE: Final = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Validators:
    """What the target said about this version of the page, for a conditional request next time."""

    etag: str | None = None
    last_modified: str | None = None


NO_VALIDATORS: Final = Validators()


@dataclass(frozen=True)
class FetchedPage:
    html: str
    final_url: str
    status_code: int
    title: str
    content_type: str
    headers: dict[str, str]  # lower-case names, the last value of each
    validators: Validators
    redirects: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def not_modified(self) -> bool:
        return self.status_code == 304


def _request_headers(control: PageControl | None, conditional: Validators | None) -> tuple[dict[str, str],
                                                                                          dict[str, str]]:
    """(headers for every hop, headers for the target's origin only)."""
    every = {"User-Agent": DEFAULT_USER_AGENT, "Accept": _ACCEPT, "Accept-Encoding": ACCEPT_ENCODING}
    origin: dict[str, str] = {}
    if conditional is not None:
        if conditional.etag:
            every["If-None-Match"] = conditional.etag
        if conditional.last_modified:
            every["If-Modified-Since"] = conditional.last_modified
    if control is None:
        return every, origin
    if control.userAgent:
        every["User-Agent"] = control.userAgent
    if control.locale:
        every["Accept-Language"] = control.locale
    (every if control.headersScope == "all" else origin).update(control.headers)
    if control.cookies:
        origin["Cookie"] = "; ".join(f"{cookie.name}={cookie.value}" for cookie in control.cookies)
    if control.authenticate is not None:
        pair = f"{control.authenticate.username}:{control.authenticate.password}".encode()
        origin["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
    return every, origin


def fetch_page(url: str, *, deadline: float, control: PageControl | None = None,
               conditional: Validators | None = None) -> FetchedPage:
    """The page as the server sends it. UrlNotAllowed when a hop is refused by the egress policy (nothing
    was sent there), NavigationFailed when it cannot be fetched."""
    every, own = _request_headers(control, conditional)
    try:
        with get(url, deadline=deadline, headers=every, origin_headers=own, max_redirects=MAX_REDIRECTS,
                 ) as response:
            content_type = response.header("Content-Type")
            body = DecodedBody(response.chunks(MAX_WIRE_BYTES), response.header("Content-Encoding"),
                               MAX_BODY_BYTES)
            data = b"".join(body) if response.status != 304 else b""
            headers = {name.lower(): value for name, value in response.headers.items()}
            final_url, status, redirects = response.url, response.status, response.redirects
    except FetchRefused as refused:
        raise UrlNotAllowed(f"The page, or where it redirects ({refused.url}), is refused by the egress "
                            "policy") from None
    except FetchFailed as failed:
        raise NavigationFailed(f"The page could not be fetched: {failed}") from None
    except UnknownCoding as coding:
        raise NavigationFailed(f"The page came with a Content-Encoding that was not asked for ({coding})",
                               ) from None
    except BrokenCoding as broken:
        raise NavigationFailed(f"The page's compressed body is broken ({broken})") from None
    warnings: tuple[str, ...] = ()
    if body.cut:
        warnings = (f"The page is larger than {MAX_BODY_BYTES // 2**20} MB; only its first "
                    f"{MAX_BODY_BYTES // 2**20} MB were read",)
    if status != 304 and is_image(content_type):
        html = image_document(final_url)
    elif status != 304 and is_text(content_type):
        html = text_document(well_formed(decode_html(data, content_type)))
    else:
        html = as_rendered(well_formed(decode_html(data, content_type)))
    title = title_of(html)
    validators = validators_of(headers)
    return FetchedPage(html, final_url, status, title, content_type, headers, validators, redirects, warnings)


def is_image(content_type: str) -> bool:
    """An image type Chromium shows as a document holding the image (SVG is a document of its own)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith("image/") and kind != "image/svg+xml"


def image_document(url: str) -> str:
    """What Chromium shows for an image served alone: a document holding it. Its Markdown is the image,
    `![](url)`, as the browser's; it links nowhere."""
    return f'<html><head></head><body><img src="{escape(url, quote=True)}"></body></html>'


def is_text(content_type: str) -> bool:
    """A type Chromium shows as text (plain text, CSS, scripts, JSON, CSV...), not as a page: neither HTML
    nor XML (which it lays out or shows as a tree)."""
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind.startswith("text/"):
        return kind not in ("text/html", "text/xml")
    return kind in ("application/json", "application/javascript", "application/ecmascript") or kind.endswith(
        "+json")


def text_document(text: str) -> str:
    """What Chromium shows for a text served alone: a document holding it in a `<pre>`, so its Markdown is
    the text as a code block, as the browser's, where read as HTML its `<tags>` would vanish."""
    return f"<html><head></head><body><pre>{escape(text, quote=False)}</pre></body></html>"


def title_of(html: str) -> str:
    match = _TITLE.search(html, 0, 200_000)
    return " ".join(unescape(match.group(1)).split())[:500] if match else ""


def validators_of(headers: Mapping[str, str] | None) -> Validators:
    """The ETag and Last-Modified of a response's headers (any case), None where absent."""
    lowered = {name.lower(): value for name, value in (headers or {}).items()}
    return Validators(etag=lowered.get("etag") or None, last_modified=lowered.get("last-modified") or None)
