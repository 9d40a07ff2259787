"""Which engine answers a request (docs/fast-path.md#engines): `browser` renders the page in Chromium,
`http` fetches it once over HTTP and reads the HTML as served, `auto` fetches and renders only when the page
needs it (fastpath.render_decision).

Some fields only mean something in a browser. With `engine: http` each is a 422 `custom` naming it (the
caller asked for something the engine cannot do); with `auto` any of them sends the page to the browser.
Fields that only change how a page is drawn (emulateMediaType, reducedMotion, timezoneId, blockAds,
rejectResourceTypes, rejectRequestPattern, waitTime) have nothing to act on in served HTML and are ignored.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError

Engine = Literal["browser", "http", "auto"]
RanEngine = Literal["browser", "http"]

ENGINE_DESCRIPTION = (
    "browser: render the page in Chromium; http: fetch it once over HTTP and read the HTML as served (no "
    "browser, much faster; fields that need a browser are refused); auto: fetch over HTTP and render in the "
    "browser only when the page needs it (built by scripts, a redirect by script, a bot wall, a browser-only "
    "field). metadata.engine says which ran")


def _set(value: Any) -> bool:
    return value not in (None, False, [], {}, "")


def browser_only_fields(request: BaseModel) -> list[str]:
    """The fields of `request` that need a browser, in the order the model declares them."""
    found: list[str] = []
    values = request.__dict__
    for name in ("actions", "waitForSelector", "scrollPage", "hideSelectors", "blockCookieBanners", "device",
                 "colorScheme", "addStyleTag", "addScriptTag", "proxy", "profile", "screenshotOptions",
                 "pdfOptions"):
        if name in values and _set(values[name]):
            found.append(name)
    if values.get("waitUntil", "load") != "load":
        found.append("waitUntil")
    formats = values.get("formats") or ()
    if "screenshot" in formats:
        found.append("formats")
    return found


class EngineChoice(BaseModel):
    """The `engine` field, and the 422 for a browser-only field with `engine: http`."""

    model_config = ConfigDict(strict=True, extra="ignore", populate_by_name=True, frozen=True,
                              defer_build=True)

    engine: Annotated[Engine, Field(description=ENGINE_DESCRIPTION)] = "browser"

    @model_validator(mode="after")
    def _http_cannot_render(self) -> EngineChoice:
        if self.engine != "http":
            return self
        needing = browser_only_fields(self)
        if needing:
            field = needing[0]
            what = "screenshot format" if field == "formats" else field
            others = f" (also: {', '.join(needing[1:])})" if len(needing) > 1 else ""
            raise PydanticCustomError(
                "custom",
                f"{what} needs a browser and engine http has none; use engine browser or auto, or leave "
                f"{field} out{others}", {"field": field})
        return self
