"""Page control (docs/api.md#page-control): the fields every browser endpoint accepts, in one base model that
the screenshot, links, ai-extract (and later markdown, content, pdf) requests inherit.

All optional; absent means the behaviour the endpoints had before. Errors become Zod-style issues through
`webcapture.validation`: every issue of a request is listed, `custom` for the rules Zod would write by hand.
"""

from __future__ import annotations

import functools
import re
import zoneinfo
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

from webcapture.glob_match import MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS
from webcapture.models.cache_control import MaxAge
from webcapture.models.devices import device_names
from webcapture.models.page_actions import TargetHandling
from webcapture.models.profiles import ProfileRef
from webcapture.url_globs import GlobRefused, check_url_glob

MAX_WAIT_FOR_SELECTOR_MS = 25_000


class StrictModel(BaseModel):
    """Like the request models: no coercion (Zod does not coerce), unknown fields ignored
    (docs/api.md#validation)."""

    # defer_build: a function validates one request model; building all of them at import cost its cold start.
    model_config = ConfigDict(
        strict=True, extra="ignore", populate_by_name=True, frozen=True, defer_build=True
    )


Selector = Annotated[str, Field(min_length=1, max_length=500)]

# RFC 7230 section 3.2.6: token = 1*tchar.
_TOKEN = re.compile(r"^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$")
# Headers the browser owns (framing, connection, the target's identity, its cookies: those go in `cookies`).
_REFUSED_HEADERS = frozenset(
    {"host", "cookie", "content-length", "connection", "transfer-encoding", "upgrade", "te", "trailer",
     "keep-alive"}
)
# BCP 47 in the shape browsers accept: a language, then subtags of 1..8 letters or digits.
_BCP47 = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")


def _check_header_name(name: str) -> str:
    if not _TOKEN.match(name):
        raise PydanticCustomError("custom", "Header names must be RFC 7230 tokens")
    lowered = name.lower()
    if lowered in _REFUSED_HEADERS or lowered.startswith("proxy-"):
        raise PydanticCustomError("custom", f"The {name} header cannot be set; the browser sets it")
    return name


@functools.cache
def _time_zones() -> frozenset[str]:
    # The IANA database's names (system zoneinfo, else the tzdata package); not every file under
    # /usr/share/zoneinfo is a zone Chromium knows ("localtime", "posixrules").
    return frozenset(zoneinfo.available_timezones() - {"localtime", "posixrules", "Factory"}) | {"UTC"}


def _check_field_value(value: str) -> str:
    # RFC 7230 field-value: no control characters but tab (a CR or LF would split the header).
    if any((ch < " " and ch != "\t") or ch == "\x7f" for ch in value):
        raise PydanticCustomError("custom", "Header values cannot contain control characters")
    return value


def _check_url_glob(glob: str) -> str:
    try:
        return check_url_glob(glob)
    except GlobRefused as refused:
        raise PydanticCustomError("custom", f"Not a glob this service reads: {refused}") from None


def _check_timezone(name: str) -> str:
    if name not in _time_zones():
        raise PydanticCustomError("custom", "Unknown IANA time zone")
    return name


def _check_locale(tag: str) -> str:
    if len(tag) > 35 or not _BCP47.match(tag):
        raise PydanticCustomError("custom", "Invalid BCP 47 language tag (like de-DE)")
    return tag


def _check_device(name: str) -> str:
    names = device_names()
    if name not in names:
        raise PydanticCustomError(
            "invalid_enum_value", "Invalid enum value", {"options": list(names), "received": name}
        )
    return name


def _selector_as_options(value: Any) -> Any:
    # The string form is shorthand for {selector}; one model keeps the paths and defaults in one place.
    return {"selector": value} if isinstance(value, str) else value


HeaderName = Annotated[str, AfterValidator(_check_header_name)]
HeaderValue = Annotated[str, Field(max_length=2000), AfterValidator(_check_field_value)]
UserAgent = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_check_field_value)]
GlobPattern = Annotated[str, Field(min_length=1, max_length=MAX_GLOB_LENGTH, description=(
    f"A Playwright URL glob: * (no /), ** (any), {{a,b}}; at most {MAX_GLOB_WILDCARDS} wildcards")),
    AfterValidator(_check_url_glob)]
ResourceType = Literal[
    "image", "media", "font", "stylesheet", "script", "xhr", "fetch", "websocket", "eventsource", "manifest",
    "other",
]


class WaitForSelector(StrictModel):
    selector: Selector
    visible: bool = False
    hidden: bool = False
    timeout: Annotated[int, Field(ge=0, le=MAX_WAIT_FOR_SELECTOR_MS)] | None = None

    @model_validator(mode="after")
    def _not_both(self) -> WaitForSelector:
        if self.visible and self.hidden:
            raise PydanticCustomError("custom", "visible and hidden cannot both be true", {"field": "hidden"})
        return self

    @property
    def state(self) -> Literal["attached", "visible", "hidden"]:
        # Present in the DOM by default, as Puppeteer's waitForSelector.
        return "visible" if self.visible else "hidden" if self.hidden else "attached"


# Chromium's own cookie limits (net/cookies/cookie_constants.h): name and value together at most 4096
# bytes, an attribute value (path, domain) at most 1024. A cookie over them is refused by the browser.
MAX_COOKIE_NAME_VALUE_BYTES = 4096
MAX_COOKIE_ATTRIBUTE_BYTES = 1024
# What RFC 6265 and Chromium allow in a name or value: no control character, no ';' (and no '=' in a
# name), no surrounding blanks (the browser trims them and then refuses a name that changed).
_COOKIE_FORBIDDEN = frozenset(chr(c) for c in (*range(0x20), 0x7F)) | {";"}


def _cookie_text(kind: str, text: str, *, name: bool) -> None:
    forbidden = _COOKIE_FORBIDDEN | ({"="} if name else set())
    if any(ch in forbidden for ch in text):
        what = "control characters, ';' or '='" if name else "control characters or ';'"
        raise PydanticCustomError("custom", f"A cookie {kind} cannot contain {what}", {"field": kind})
    if text != text.strip(" \t"):
        message = f"A cookie {kind} cannot start or end with a blank"
        raise PydanticCustomError("custom", message, {"field": kind})


class Cookie(StrictModel):
    name: Annotated[str, Field(min_length=1, max_length=MAX_COOKIE_NAME_VALUE_BYTES)]
    value: Annotated[str, Field(
        max_length=MAX_COOKIE_NAME_VALUE_BYTES,
        description="name and value together at most 4096 bytes (UTF-8), as Chromium accepts",
    )]
    domain: Annotated[str, Field(min_length=1, max_length=253)] | None = None
    path: Annotated[str, Field(min_length=1, max_length=MAX_COOKIE_ATTRIBUTE_BYTES)] | None = None
    secure: bool | None = None
    httpOnly: bool | None = None
    sameSite: Literal["Strict", "Lax", "None"] | None = None
    # Unix seconds; strict float still takes an int and refuses true/false (lax would read them as 1/0).
    expires: Annotated[float, Field(ge=0)] | None = None

    @model_validator(mode="after")
    def _as_chromium_accepts(self) -> Cookie:
        _cookie_text("name", self.name, name=True)
        _cookie_text("value", self.value, name=False)
        if len(self.name.encode()) + len(self.value.encode()) > MAX_COOKIE_NAME_VALUE_BYTES:
            raise PydanticCustomError(
                "custom",
                f"A cookie's name and value together are at most {MAX_COOKIE_NAME_VALUE_BYTES} bytes (UTF-8)",
                {"field": "value"},
            )
        if self.path is not None:
            if not self.path.startswith("/"):
                raise PydanticCustomError("custom", "A cookie path starts with /", {"field": "path"})
            if len(self.path.encode()) > MAX_COOKIE_ATTRIBUTE_BYTES or any(
                ch in _COOKIE_FORBIDDEN for ch in self.path
            ):
                raise PydanticCustomError(
                    "custom",
                    f"A cookie path is at most {MAX_COOKIE_ATTRIBUTE_BYTES} bytes, without control "
                    "characters or ';'",
                    {"field": "path"},
                )
        if self.sameSite == "None" and self.secure is not True:
            # Chromium drops a SameSite=None cookie that is not Secure.
            raise PydanticCustomError("custom", "sameSite None needs secure: true", {"field": "secure"})
        return self


class Credentials(StrictModel):
    username: Annotated[str, Field(max_length=1000)]
    password: Annotated[str, Field(max_length=1000)]


class InjectedTag(StrictModel):
    content: Annotated[str, Field(min_length=1, max_length=20_000)] | None = None
    url: Annotated[str, Field(min_length=1, max_length=2000)] | None = None

    @model_validator(mode="after")
    def _content_or_url(self) -> InjectedTag:
        if (self.content is None) == (self.url is None):
            raise PydanticCustomError("custom", "Give either content or url")
        if self.url is not None and (not re.match(r"^https?://[^\s/]", self.url, re.IGNORECASE)
                                     or re.search(r"[\x00-\x1f\x7f-\x9f]", self.url)):
            raise PydanticCustomError("invalid_url", "Invalid url", {"field": "url"})
        return self


class PageControl(StrictModel, TargetHandling):
    """docs/api.md#page-control (and 20's fields, from TargetHandling). Requests that inherit it keep their
    own fields; these are the page's preparation."""

    waitUntil: Literal["load", "domcontentloaded", "networkidle0", "networkidle2"] = "load"
    waitForSelector: Annotated[WaitForSelector | None, BeforeValidator(_selector_as_options)] = None
    bestAttempt: bool = False
    scrollPage: bool = False
    hideSelectors: Annotated[list[Selector], Field(max_length=50)] = Field(default_factory=list)
    blockAds: bool = False
    blockCookieBanners: bool = False
    rejectResourceTypes: list[ResourceType] = Field(default_factory=list)
    rejectRequestPattern: Annotated[list[GlobPattern], Field(max_length=50)] = Field(default_factory=list)
    headers: Annotated[dict[HeaderName, HeaderValue], Field(max_length=30)] = Field(default_factory=dict)
    # Where `headers` go: "origin", requests to the target's own origin (as `authenticate`'s credentials);
    # "all", every request the page makes, to any origin (a caller's token would reach ad servers and CDNs).
    headersScope: Annotated[Literal["origin", "all"], Field(
        description="origin (default): headers go only to requests for the target URL's origin; all: to "
                    "every request the page makes, on any origin"
    )] = "origin"
    cookies: Annotated[list[Cookie], Field(max_length=50)] = Field(default_factory=list)
    userAgent: UserAgent | None = None
    authenticate: Credentials | None = None
    emulateMediaType: Literal["screen", "print"] | None = None
    colorScheme: Literal["light", "dark", "no-preference"] | None = None
    reducedMotion: Literal["reduce", "no-preference"] | None = None
    timezoneId: Annotated[str, Field(max_length=100, description="An IANA time zone (Europe/Berlin)"),
                          AfterValidator(_check_timezone)] | None = None
    locale: Annotated[str, Field(description="A BCP 47 language tag (de-DE)"),
                      AfterValidator(_check_locale)] | None = None
    # The names are the installed Playwright's (BrowserLayer), so the document cannot list them as an enum.
    device: Annotated[str, Field(description="A device name from Playwright's list ('iPhone 15 Pro'); an "
                                             "unknown one is a 422 invalid_enum_value listing the names"),
                      AfterValidator(_check_device)] | None = None
    addStyleTag: Annotated[list[InjectedTag], Field(max_length=10)] = Field(default_factory=list)
    addScriptTag: Annotated[list[InjectedTag], Field(max_length=10)] = Field(default_factory=list)
    # docs/cache-and-signed-links.md#cache-and-signed-links: read by webcapture.cache, never by the browser
    maxAge: MaxAge = 0
    # A logged-in session to start from (docs/profiles.md): read by webcapture.profiles before any work.
    profile: ProfileRef | None = None
