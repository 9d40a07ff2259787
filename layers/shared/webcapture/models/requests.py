"""Request bodies of the five endpoints, with every constraint of the interface spec.

Models are strict (no coercion of "5" into 5, as Zod does not coerce) and ignore unknown fields
(CONTRACT 5). Errors are turned into Zod-style issues by `webcapture.validation`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError


def _check_target_url(value: str) -> str:
    """`format uri` restricted to http/https with a host, as the capture endpoints need."""
    try:
        parts = urlsplit(value)
        host = parts.hostname
    except ValueError:
        host = None
        parts = None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not host or any(
        ch.isspace() for ch in value
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
    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True, frozen=True)


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

    @model_validator(mode="after")
    def _quality_needs_lossy_format(self) -> ScreenshotOptions:
        # Puppeteer refuses quality for png; so do we (CONTRACT 7).
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


class ScreenshotRequest(_Strict):
    url: TargetUrl
    waitTime: WaitTime = 0
    base64: bool = False
    screenshotOptions: ScreenshotOptions = Field(default_factory=ScreenshotOptions)
    viewport: Viewport = Field(default_factory=Viewport)

    @property
    def wants_base64(self) -> bool:
        return self.base64 or self.screenshotOptions.encoding == "base64"


class LinksRequest(_Strict):
    url: TargetUrl
    includeExternal: bool = True
    waitTime: WaitTime = 0


class AiExtractRequest(_Strict):
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
