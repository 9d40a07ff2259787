"""Bot walls (docs/actions-and-blocked-pages.md#actions-and-blocked-pages): is the final page a challenge or
captcha served instead of the page?

Pure and fast: it looks at what the walls really serve, not at words a page might use about them.
- Cloudflare: the `cf-mitigated: challenge` header; the challenge titles ("Just a moment...", "Attention
  Required! | Cloudflare") or a 403/429/503 with `server: cloudflare`, together with the challenge's own
  parts (`/cdn-cgi/challenge-platform/` scripts, `window._cf_chl_opt`, `#challenge-form`,
  `#cf-error-details`).
  The challenge-platform script alone is not a wall: Bot Management puts it on ordinary pages too.
- Turnstile, reCAPTCHA, hCaptcha: a widget (their scripts or frames, `.cf-turnstile`, `.g-recaptcha`,
  `.h-captcha`) on a short page that is only a check (an error status, or "unusual traffic", "verify you
  are human", "are you a robot"). A widget in an ordinary form is not a wall.
- Akamai: the "Access Denied" page with its "Reference #" (or "You don't have permission to access").
- DataDome: its captcha from `captcha-delivery.com` (the tag of a protected page is `js.datadome.co`), or
  a 403 with the `x-datadome` header.
- PerimeterX / HUMAN: `#px-captcha` with its "Press & Hold", its block title ("Access to this page has been
  denied") or a 403.

Signals come from the browser (webcapture.browser.page.target_checks) or from HTML (`signals_from_html`,
for tests and scripts/bench_walls.py).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# Pages longer than this (visible characters) are content, whatever else they hold: every wall is short.
SHORT_PAGE_CHARS = 2_000
# The visible text a check reads (from the start of the page); walls say what they are early.
TEXT_SAMPLE_CHARS = 3_000

# Element ids and classes that belong to the walls (matched whole, as the browser's querySelector does).
MARKER_IDS = ("challenge-form", "challenge-running", "challenge-stage", "challenge-error-text", "cf-wrapper",
              "cf-error-details", "cf-challenge-running", "px-captcha", "turnstile-wrapper")
MARKER_CLASSES = ("cf-turnstile", "g-recaptcha", "h-captcha", "cf-browser-verification")
# Inline script words of the walls (their configuration objects).
INLINE_MARKERS = ("_cf_chl_opt", "captcha-delivery.com", "_pxAppId", "_pxUuid")

# Whole titles (a post titled "Just a moment with our founder" is not one), then title fragments.
_CF_TITLES = frozenset({"just a moment...", "just a moment\u2026", "just a moment",
                        "attention required! | cloudflare", "please wait... | cloudflare",
                        "one moment, please...",
                        "checking your browser"})
_CF_TITLE_PARTS = ("used cloudflare to restrict access", "checking your browser before accessing")
_CF_PARTS = ("challenge-form", "challenge-running", "challenge-stage", "challenge-error-text", "cf-wrapper",
             "cf-error-details", "cf-challenge-running", "cf-browser-verification")
_CAPTCHA_SOURCES = ("challenges.cloudflare.com/turnstile", "google.com/recaptcha", "recaptcha.net/recaptcha",
                    "gstatic.com/recaptcha", "hcaptcha.com/1/api", "newassets.hcaptcha.com",
                    "js.hcaptcha.com", "hcaptcha.com/captcha")
_CHECK_WORDS = (
    r"unusual traffic|are you a robot|not a robot|verify (?:that )?you(?:'re| are) (?:a )?human|"
    r"human verification|prove you(?:'re| are) (?:a )?human|checking (?:if the site connection|your browser)|"
    r"security check|complete the (?:captcha|challenge)|bot protection|automated (?:queries|requests|access)"
)
_PX_SOURCES = ("px-cdn.net", "perimeterx.net", "px-cloud.net", "/captcha/captcha.js")
_BLOCKING_STATUSES = frozenset({403, 429, 503})


@dataclass(frozen=True)
class PageSignals:
    status: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)  # names lower-case
    title: str = ""
    script_srcs: tuple[str, ...] = ()
    iframe_srcs: tuple[str, ...] = ()
    cookie_names: tuple[str, ...] = ()
    markers: frozenset[str] = frozenset()  # MARKER_IDS, MARKER_CLASSES and INLINE_MARKERS found
    text: str = ""  # the visible text's start (TEXT_SAMPLE_CHARS)
    # All of the visible text; None when it was not read (needs_text said no rule would ask): a long page.
    text_length: int | None = 0

    @property
    def short(self) -> bool:
        return self.text_length is not None and self.text_length < SHORT_PAGE_CHARS


@dataclass(frozen=True)
class Wall:
    vendor: str
    evidence: str

    def message(self) -> str:
        return (f"The target answered with a bot wall ({self.vendor}: {self.evidence}) instead of the page; "
                "no credit was taken. Send allowBlocked: true to capture the wall as it is")


# Titles whose rules read the text.
TEXT_TITLES = ("access denied", "access to this page has been")
# Sources whose rules read the text (lower case, as substrings of a script's or frame's URL).
TEXT_SOURCES = ("/cdn-cgi/challenge-platform/", *_CAPTCHA_SOURCES)


def needs_text(title: str, sources: str, markers: frozenset[str]) -> bool:
    """Whether any rule could read the page's text (so an ordinary page is never read as text): a wall's
    element or inline configuration, a source some rule reads text for, or a title that one does.
    `sources`: the lower-cased script and frame URLs, joined."""
    lowered = title.strip().lower()
    return bool(markers) or any(lowered.startswith(t) for t in TEXT_TITLES) or any(
        source in sources for source in TEXT_SOURCES)


def detect_wall(page: PageSignals) -> Wall | None:
    """The wall this page is, or None for a page to capture."""
    return _cloudflare(page) or _datadome(page) or _perimeterx(page) or _akamai(page) or _captcha(page)


def _sources(page: PageSignals) -> Iterable[str]:
    yield from page.script_srcs
    yield from page.iframe_srcs


def _any_in(needles: Iterable[str], haystacks: Iterable[str]) -> str | None:
    lowered = [hay.lower() for hay in haystacks]
    return next((needle for needle in needles for hay in lowered if needle in hay), None)


def _cloudflare(page: PageSignals) -> Wall | None:
    headers = page.headers
    if headers.get("cf-mitigated", "").strip().lower() == "challenge":
        return Wall("Cloudflare", "cf-mitigated: challenge")
    title = page.title.strip().lower()
    parts = [part for part in _CF_PARTS if part in page.markers]
    challenge_script = any("/cdn-cgi/challenge-platform/" in src for src in page.script_srcs)
    options = "_cf_chl_opt" in page.markers
    served_by_cf = headers.get("server", "").strip().lower() == "cloudflare" or "cf-ray" in headers
    # The challenge-platform script counts on a short page only: Bot Management adds it to ordinary ones.
    own = parts or options or (challenge_script and page.short)
    if own and (title in _CF_TITLES or any(part in title for part in _CF_TITLE_PARTS)):
        return Wall("Cloudflare", f"challenge page titled {page.title.strip()[:80]!r}")
    if served_by_cf and page.status in _BLOCKING_STATUSES and (parts or options):
        return Wall("Cloudflare", f"{page.status} with {(parts or ['_cf_chl_opt'])[0]}")
    return None


def _datadome(page: PageSignals) -> Wall | None:
    if _any_in(("captcha-delivery.com",), _sources(page)):
        return Wall("DataDome", "captcha from captcha-delivery.com")
    if "x-datadome" in page.headers and page.status in _BLOCKING_STATUSES:
        return Wall("DataDome", f"{page.status} with x-datadome")
    if "captcha-delivery.com" in page.markers and page.short:
        return Wall("DataDome", "captcha configuration on a short page")
    return None


def _perimeterx(page: PageSignals) -> Wall | None:
    title = page.title.strip().lower()
    px_title = title.startswith("access to this page has been denied") or title.startswith(
        "access to this page has been blocked")
    text = page.text.lower()
    hold = "press & hold" in text or "press and hold" in text
    if "px-captcha" in page.markers and (px_title or hold or page.status in _BLOCKING_STATUSES):
        return Wall("PerimeterX", "#px-captcha (Press & Hold)")
    px_parts = ("_pxAppId" in page.markers or _any_in(_PX_SOURCES, _sources(page))
                or any(name.startswith("_px") for name in page.cookie_names))
    if px_title and px_parts:
        return Wall("PerimeterX", f"block page titled {page.title.strip()[:80]!r}")
    return None


def _akamai(page: PageSignals) -> Wall | None:
    if page.title.strip().lower() != "access denied" or not page.short:
        return None
    text = page.text.lower().replace("\u2019", "'")  # a typographic apostrophe reads as a plain one
    if "reference #" in text or "don't have permission to access" in text:
        return Wall("Akamai", "Access Denied with its Reference #")
    return None


def _captcha(page: PageSignals) -> Wall | None:
    widget = _any_in(_CAPTCHA_SOURCES, _sources(page)) or next(
        (name for name in ("cf-turnstile", "g-recaptcha", "h-captcha") if name in page.markers), None)
    if widget is None or not page.short:
        return None
    if page.status in _BLOCKING_STATUSES:
        return Wall("captcha", f"{page.status} with {widget}")
    words = _pattern(_CHECK_WORDS, re.IGNORECASE)
    if words.search(page.title) or words.search(page.text):
        return Wall("captcha", f"interstitial with {widget}")
    return None


@functools.cache
def _pattern(expression: str, flags: int = 0) -> re.Pattern[str]:
    # Compiled on first use: captures import this module at a cold start, and most never need these.
    return re.compile(expression, flags)


# ---------------------------------------------------------------- from HTML (tests, benchmark)
_TITLE = r"<title[^>]*>(.*?)</title"
_SRC_OF = {tag: rf"<{tag}\b[^>]*?\bsrc\s*=\s*[\"']?([^\"'\s>]+)" for tag in ("script", "iframe")}
_ID_OR_CLASS = r"\b(?:id|class)\s*=\s*[\"']?([^\"'>]*)"
_INVISIBLE = r"<(script|style|noscript|template|head)\b.*?</\1\s*>"
_TAG = r"<[^>]*>"
_SPACE = r"\s+"
_WANTED = frozenset(MARKER_IDS) | frozenset(MARKER_CLASSES)
# Every source any rule looks at; a page holding none of them needs its script and frame URLs not at all.
_SOURCE_WORDS = ("/cdn-cgi/challenge-platform/", "captcha-delivery.com", *_CAPTCHA_SOURCES, *_PX_SOURCES)
# Every marker and source word holds one of these: a page that holds none is looked at no further (a few
# scans of the HTML instead of one per word; tests/unit/test_bot_walls.py checks the cover).
ANCHORS = ("challenge", "captcha", "cf-", "_cf_chl", "_px", "perimeterx", "px-c", "turnstile")


def signals_from_html(html: str, status: int | None = None, headers: Mapping[str, str] | None = None,
                      cookie_names: Iterable[str] = ()) -> PageSignals:
    """The signals of a served HTML document, as the browser would report them (close enough: the text is
    the markup without tags, scripts and styles). Each marker is first looked for as a plain substring, so
    an ordinary page costs a few scans of its text and no parsing."""
    import html as html_lib  # its entity table is large; captures never come here

    space = _pattern(_SPACE)
    title_match = _pattern(_TITLE, re.IGNORECASE | re.DOTALL).search(html)
    title = html_lib.unescape(space.sub(" ", title_match.group(1))).strip() if title_match else ""
    markers: set[str] = set()
    scripts: tuple[str, ...] = ()
    iframes: tuple[str, ...] = ()
    if any(anchor in html for anchor in ANCHORS):  # else an ordinary page: no marker can be in it
        markers = {marker for marker in INLINE_MARKERS if marker in html}
        wanted = [name for name in _WANTED if name in html]
        if wanted:
            found = {word for value in _pattern(_ID_OR_CLASS, re.IGNORECASE).findall(html)
                     for word in value.split()}
            markers |= found.intersection(wanted)
        if any(source in html for source in _SOURCE_WORDS):
            scripts, iframes = (tuple(_pattern(_SRC_OF[tag], re.IGNORECASE).findall(html))
                                for tag in ("script", "iframe"))
    text, length = "", None
    if needs_text(title, " ".join((*scripts, *iframes)).lower(), frozenset(markers)):
        visible = _pattern(_INVISIBLE, re.IGNORECASE | re.DOTALL).sub(" ", html)
        text = space.sub(" ", html_lib.unescape(_pattern(_TAG).sub(" ", visible))).strip()
        length = len(text)
    return PageSignals(
        status=status,
        headers={name.lower(): value for name, value in (headers or {}).items()},
        title=title,
        script_srcs=scripts,
        iframe_srcs=iframes,
        cookie_names=tuple(cookie_names),
        markers=frozenset(markers),
        text=text[:TEXT_SAMPLE_CHARS],
        text_length=length,
    )
