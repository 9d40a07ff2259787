"""Request bodies of the five endpoints, with every constraint of the interface spec.

Models are strict (no coercion of "5" into 5, as Zod does not coerce) and ignore unknown fields
(docs/api.md#validation). Errors are turned into Zod-style issues by `webcapture.validation`.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

from webcapture.models.engines import EngineChoice
from webcapture.models.page_control import PageControl, Selector
from webcapture.pixel_limits import limit_message, output_px, too_large


def is_control_character(ch: str) -> bool:
    """C0 (NUL included), DEL and C1: never part of a URL; the browser would send a NUL as %00."""
    return ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F


def _check_target_url(value: str) -> str:
    """`format uri` restricted to http/https with a host, as the capture endpoints need."""
    try:
        parts = urlsplit(value)
        host = parts.hostname
        port = parts.port  # ValueError above 65535 or when not a number (docs/api.md#limits)
    except ValueError:
        host = None
        parts = None
        port = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host or port == 0 or any(
        ch.isspace() or is_control_character(ch) for ch in value
    ):
        raise PydanticCustomError("invalid_url", "Invalid url")
    return value


TargetUrl = Annotated[
    str,
    AfterValidator(_check_target_url),
    WithJsonSchema({"type": "string", "format": "uri", "description": "The page: an http or https URL"}),
]
WaitTime = Annotated[int, Field(ge=0, le=5000)]


class _Strict(BaseModel):
    # defer_build: a function validates one request model; building all of them at import cost its cold start.
    model_config = ConfigDict(
        strict=True, extra="ignore", populate_by_name=True, frozen=True, defer_build=True
    )


class Clip(_Strict):
    height: Annotated[int, Field(ge=1)]
    width: Annotated[int, Field(ge=1)]
    x: Annotated[int, Field(ge=0)]
    y: Annotated[int, Field(ge=0)]
    scale: Annotated[float, Field(ge=0.1, le=10)] | None = None


ImageType = Literal["png", "jpeg", "webp"]


class ScreenshotOptions(_Strict):
    captureBeyondViewport: bool | None = None
    clip: Clip | None = None
    encoding: Literal["binary", "base64"] = "binary"
    fromSurface: bool | None = None
    fullPage: bool = True
    omitBackground: bool | None = None
    optimizeForSpeed: bool | None = None
    quality: Annotated[int, Field(ge=1, le=100)] | None = None
    type: ImageType = "png"
    selector: Selector | None = None  # docs/api.md#page-control: capture this element only

    @model_validator(mode="after")
    def _one_region(self) -> ScreenshotOptions:
        if self.selector is not None and self.clip is not None:
            raise PydanticCustomError(
                "custom", "selector and clip cannot be combined; give one region", {"field": "selector"}
            )
        return self

    @model_validator(mode="after")
    def _quality_needs_lossy_format(self) -> ScreenshotOptions:
        # Puppeteer refuses quality for png; so do we (docs/api.md#screenshot).
        if self.quality is not None and self.type == "png":
            raise PydanticCustomError(
                "custom",
                "quality applies to jpeg and webp only, not png",
                {"field": "quality"},
            )
        return self


class Viewport(_Strict):
    height: Annotated[int, Field(ge=100, le=2160)] = 800
    width: Annotated[int, Field(ge=100, le=3840)] = 1280
    deviceScaleFactor: Annotated[float, Field(ge=0.1, le=10)] = 1
    hasTouch: bool = False
    isLandscape: bool = False
    isMobile: bool = False


class ScreenshotRequest(PageControl):
    url: TargetUrl
    waitTime: WaitTime = 0
    base64: bool = False
    screenshotOptions: ScreenshotOptions = Field(default_factory=ScreenshotOptions)
    viewport: Viewport = Field(default_factory=Viewport)

    @model_validator(mode="after")
    def _output_within_pixel_limits(self) -> ScreenshotRequest:
        # docs/api.md#limits: refuse before any browser work what is known to be too large. A full page is at
        # least the viewport; its height is only known in the browser, which cuts it (browser/screenshot).
        clip, dsf = self.screenshotOptions.clip, self.viewport.deviceScaleFactor
        if clip is not None:
            scale, width, height = dsf * (clip.scale or 1), clip.width, clip.height
            path = ["screenshotOptions", "clip"]
        else:
            scale, width, height, path = dsf, self.viewport.width, self.viewport.height, ["viewport"]
        out_width, out_height = output_px(width, scale), output_px(height, scale)
        if too_large(out_width, out_height):
            raise PydanticCustomError("custom", limit_message(out_width, out_height), {"path": path})
        return self

    @property
    def wants_base64(self) -> bool:
        return self.base64 or self.screenshotOptions.encoding == "base64"


class LinksRequest(PageControl, EngineChoice):
    url: TargetUrl
    includeExternal: bool = True
    waitTime: WaitTime = 0


class AiExtractRequest(PageControl, EngineChoice):
    url: TargetUrl
    waitTime: WaitTime = 0
    responseType: Literal["json", "text"] = "json"
    prompt: Annotated[str, Field(min_length=1, max_length=1000)] | None = None
    response_format: dict[str, Any] | None = None
    instructions: Annotated[str, Field(max_length=500)] | None = None

    @model_validator(mode="after")
    def _json_needs_a_question(self) -> AiExtractRequest:
        if self.responseType == "json" and self.prompt is None and self.response_format is None:
            raise PydanticCustomError(
                "custom",
                "responseType json needs a prompt or a response_format",
                {"field": "prompt"},
            )
        return self


class FileDeleteRequest(_Strict):
    fileId: Annotated[str, Field(min_length=1)]
    deleteFromStorage: bool = False


# ---------------------------------------------------------------- more outputs (docs/api.md#more-outputs)
class MarkdownRequest(PageControl, EngineChoice):
    url: TargetUrl
    waitTime: WaitTime = 0
    onlyMainContent: bool = True


class ContentRequest(PageControl, EngineChoice):
    url: TargetUrl
    waitTime: WaitTime = 0


PaperFormat = Literal["A3", "A4", "A5", "Legal", "Letter", "Tabloid"]
# Paper sizes in inches (width, height, portrait), as Chromium prints them.
PAPER_INCHES: dict[str, tuple[float, float]] = {
    "A3": (11.69, 16.54), "A4": (8.27, 11.69), "A5": (5.83, 8.27),
    "Legal": (8.5, 14), "Letter": (8.5, 11), "Tabloid": (11, 17),
}  # fmt: skip
# The units Chromium's printing understands (Playwright and Puppeteer pass these through): a bare number
# is pixels. Other CSS units (em, %, pt) would be refused by the browser only after the page loaded.
_INCHES_PER_UNIT = {"px": 1 / 96, "in": 1.0, "cm": 1 / 2.54, "mm": 1 / 25.4}
# ASCII digits only: Chromium's printing parses lengths with ASCII digits, and Python's \d would also take
# Arabic-Indic or full-width ones (U+0661, U+FF11) that the browser refuses after the page has loaded.
_CSS_LENGTH = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(px|in|cm|mm)?", re.ASCII)


def _check_css_length(value: str) -> str:
    if not _CSS_LENGTH.fullmatch(value.strip().lower()):
        raise PydanticCustomError(
            "custom", "Expected a length in ASCII digits such as 10px, 1.5cm, 0.5in or 20mm"
        )
    return value.strip().lower()


CssLength = Annotated[str, Field(max_length=32), AfterValidator(_check_css_length)]


def length_in_inches(value: str | None) -> float:
    if not value:
        return 0.0
    match = _CSS_LENGTH.fullmatch(value)
    assert match is not None  # validated by CssLength
    return float(match.group(1)) * _INCHES_PER_UNIT[match.group(2) or "px"]


class PdfMargin(_Strict):
    top: CssLength | None = None
    right: CssLength | None = None
    bottom: CssLength | None = None
    left: CssLength | None = None


# Chromium's page ranges: "1-5, 8, 11-13", open ends allowed ("-3", "4-"), pages counted from 1.
_PAGE_RANGE = re.compile(
    r"[ \t]*(?:([0-9]+)[ \t]*-[ \t]*([0-9]*)|-[ \t]*([0-9]+)|([0-9]+))[ \t]*", re.ASCII
)


def _check_page_ranges(value: str) -> str:
    for part in value.split(","):
        match = _PAGE_RANGE.fullmatch(part)
        if not match:
            raise PydanticCustomError("custom", "Expected page ranges in ASCII digits such as 1-5, 8, 11-13")
        numbers = [int(n) for n in match.groups() if n]
        if 0 in numbers:
            raise PydanticCustomError("custom", "Pages are counted from 1")
        if match.group(1) and match.group(2) and int(match.group(1)) > int(match.group(2)):
            raise PydanticCustomError("custom", f"Page range {part.strip()} ends before it starts")
    return value


PageRanges = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_check_page_ranges)]


class PdfOptions(_Strict):
    format: PaperFormat = "A4"
    landscape: bool = False
    printBackground: bool = True
    scale: Annotated[float, Field(ge=0.1, le=2)] = 1
    margin: PdfMargin = Field(default_factory=PdfMargin)
    pageRanges: PageRanges | None = None
    preferCSSPageSize: bool = False

    @model_validator(mode="after")
    def _margins_leave_room(self) -> PdfOptions:
        # Chromium refuses margins that leave no printable area, but only after the page was loaded.
        width, height = PAPER_INCHES[self.format]
        if self.landscape:
            width, height = height, width
        m = self.margin
        if length_in_inches(m.left) + length_in_inches(m.right) >= width:
            raise PydanticCustomError("custom", "The left and right margins leave no room on the page",
                                      {"field": "margin"})
        if length_in_inches(m.top) + length_in_inches(m.bottom) >= height:
            raise PydanticCustomError("custom", "The top and bottom margins leave no room on the page",
                                      {"field": "margin"})
        return self


class PdfRequest(PageControl):
    url: TargetUrl
    waitTime: WaitTime = 0
    base64: bool = False
    pdfOptions: PdfOptions = Field(default_factory=PdfOptions)
