"""The screenshot core: every option of the spec's screenshot request mapped onto Chromium.

The capture itself goes through CDP's Page.captureScreenshot, because Playwright's screenshot has no webp,
no clip scale, and no fromSurface, optimizeForSpeed or captureBeyondViewport; these option names are
Puppeteer's, and so are the semantics followed here:
- clip wins over fullPage (docs/api.md#screenshot); clip is in CSS pixels of the page, its scale multiplies
the output
  (image = clip size x scale x deviceScaleFactor); with captureBeyondViewport false, the part of the clip
  outside the viewport comes out blank (Chromium does not render it), so the size stays predictable;
- fullPage (the default) captures the page's whole CSS content size; with captureBeyondViewport false the
  viewport is first resized to that size, as Puppeteer does; a page whose image would exceed the pixel
  limits (docs/api.md#limits, webcapture.pixel_limits) is cut to them from the top left, with a warning;
- captureBeyondViewport defaults to true for clip and fullPage captures and is off for a viewport capture;
- omitBackground clears the default white background for png and webp (jpeg has no alpha);
- quality applies to jpeg and webp (the request model refuses it for png);
- viewport.isLandscape: our rule is that a landscape viewport is at least as wide as it is tall, so a
  portrait width/height pair is swapped; a viewport that is already landscape (or square) is kept, and
  isLandscape false never swaps (the default 1280x800 is landscape already).
"""

from __future__ import annotations

import base64
import contextlib
import math
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import CDPSession, Page, ViewportSize
from playwright.sync_api import Error as PlaywrightError

from webcapture.browser import blank_screenshot
from webcapture.browser.budget import MIN_STEP_MS
from webcapture.browser.page.page_context import effective_setup
from webcapture.browser.page.page_motion import PageMoving
from webcapture.browser.page.page_preparation import capture_reserve_ms, is_selector_error
from webcapture.browser.page_session import LoadedPage, PageSetup, with_loaded_page
from webcapture.errors import ElementNotFound, NavigationFailed
from webcapture.images import CONTENT_TYPES, ImageFormat, image_info
from webcapture.models.requests import ScreenshotOptions, ScreenshotRequest, Viewport
from webcapture.pixel_limits import MAX_PIXELS, MAX_SIDE_PX, largest_css_size


@dataclass(frozen=True)
class Screenshot:
    image: bytes
    format: ImageFormat
    # Measured from the image bytes, not taken from the request.
    width: int
    height: int
    final_url: str  # after redirects: the document that was captured
    status_code: int | None  # of the main document's last response; None if there was no HTTP response
    requested_url: str
    warnings: tuple[str, ...] = ()  # for data.warning / X-Webcapture-Warning

    @property
    def size(self) -> int:
        return len(self.image)

    @property
    def content_type(self) -> str:
        return CONTENT_TYPES[self.format]


# The request's viewport fields and the PageSetup fields they set (a `device` gives way to these).
_SETUP_OF_VIEWPORT = {"width": "width", "height": "height", "deviceScaleFactor": "device_scale_factor",
                      "isMobile": "is_mobile", "hasTouch": "has_touch"}


def page_setup(viewport: Viewport, explicit: set[str] | None = None) -> PageSetup:
    """explicit: the viewport fields the caller gave (model_fields_set), which win over a device's."""
    width, height = viewport.width, viewport.height
    given = set(explicit or ())
    if viewport.isLandscape and height > width:
        width, height = height, width
        given |= {"width", "height"}
    return PageSetup(
        width=width,
        height=height,
        device_scale_factor=viewport.deviceScaleFactor,
        is_mobile=viewport.isMobile,
        has_touch=viewport.hasTouch,
        explicit=frozenset(_SETUP_OF_VIEWPORT[name] for name in given if name in _SETUP_OF_VIEWPORT),
    )


def take_screenshot(request: ScreenshotRequest) -> Screenshot:
    def capture(loaded: LoadedPage) -> Screenshot:
        # A navigation during the capture makes it start again once the page is at rest (page_session).
        image, cut, flat = _capture(loaded, request.screenshotOptions, scale)
        blank: tuple[str, ...] = ()
        if flat is not None and loaded.page.evaluate(blank_screenshot.PAGE_HAS_CONTENT_JS, flat):
            # docs/actions-and-blocked-pages.md#actions-and-blocked-pages: one flat colour while the page
            # shows something; once more after a short wait.
            room = loaded.deadline.remaining_ms - capture_reserve_ms(loaded.deadline)
            if room > MIN_STEP_MS:
                loaded.page.wait_for_timeout(min(blank_screenshot.RETRY_WAIT_MS, room))
                image, cut, flat = _capture(loaded, request.screenshotOptions, scale)
            blank = (blank_screenshot.WARNING,) if flat is not None else ()
        info = image_info(image)
        return Screenshot(
            image=image,
            format=info.format,
            width=info.width,
            height=info.height,
            final_url=loaded.page.url,
            status_code=loaded.status_code,
            requested_url=request.url,
            warnings=(*loaded.warnings, *cut, *blank),
        )

    explicit = set(request.viewport.model_fields_set) if "viewport" in request.model_fields_set else set()
    setup = page_setup(request.viewport, explicit)
    scale = effective_setup(setup, request).device_scale_factor  # a device's own, unless given
    return with_loaded_page(request.url, request.waitTime, capture, setup, request)


def _capture(
    loaded: LoadedPage, options: ScreenshotOptions, device_scale_factor: float
) -> tuple[bytes, tuple[str, ...], list[float] | None]:
    """The image, its warnings, and, when it is one flat colour (blank_screenshot), the region it shows
    (x, y, width, height in CSS px of the page)."""
    page = loaded.page
    cdp = page.context.new_cdp_session(page)
    # Chromium may never answer a capture whose document is replaced under it; detaching fails the call now.
    with loaded.motion.interrupting(cdp.detach):
        try:
            image, warnings, params = _capture_with(cdp, page, options, device_scale_factor)
            return image, warnings, _is_flat(cdp, image, params)
        finally:
            with contextlib.suppress(Exception):  # the context closes right after; don't hide a real error
                cdp.detach()


def _is_flat(cdp: CDPSession, image: bytes, params: dict[str, Any]) -> list[float] | None:
    """The captured region when the capture is one flat colour, else None: looked at only when the image
    is small for its size, through a PNG of the same region at a probe's scale."""
    info = image_info(image)
    if not blank_screenshot.may_be_flat(len(image), info.width, info.height):
        return None
    clip = params["clip"]
    shrink = blank_screenshot.probe_scale(clip["width"] * clip["scale"], clip["height"] * clip["scale"])
    probe = {**{k: v for k, v in params.items() if k != "quality"}, "format": "png",
             "clip": {**clip, "scale": clip["scale"] * shrink}}
    if blank_screenshot.is_flat_png(base64.b64decode(_send_capture(cdp, probe))) is not True:
        return None
    return [clip["x"], clip["y"], clip["width"], clip["height"]]


def _capture_with(
    cdp: CDPSession, page: Page, options: ScreenshotOptions, device_scale_factor: float
) -> tuple[bytes, tuple[str, ...], dict[str, Any]]:
    params: dict[str, Any] = {"format": options.type}
    warnings: tuple[str, ...] = ()
    if options.quality is not None and options.type != "png":
        params["quality"] = options.quality
    if options.fromSurface is not None:
        params["fromSurface"] = options.fromSurface
    if options.optimizeForSpeed is not None:
        params["optimizeForSpeed"] = options.optimizeForSpeed
    # Every capture asks for the layout metrics first, even a clip that does not need them: the round trip
    # through the renderer is a barrier. Without it a clip captured right after the load fails about one
    # time in twelve with "Unable to capture screenshot" (measured: 12 of 150 here, 0 of 300 with it).
    metrics = cdp.send("Page.getLayoutMetrics")
    # Playwright emulates the device scale factor in its own CDP session; a capture from ours renders
    # at scale 1 unless told otherwise. So every capture names its region and multiplies the scale by
    # the device scale factor (checked: byte-identical to Playwright's own screenshot).
    if options.selector is not None:
        x, y, box_width, box_height = _element_box(page, options.selector)
        # An element is as unbounded as the page it is on (docs/api.md#limits).
        width, height, warnings = _within_limits(box_width, box_height, device_scale_factor, "element")
        region = _region(x, y, width, height, device_scale_factor)
        params["captureBeyondViewport"] = options.captureBeyondViewport is not False
    elif options.clip is not None:
        clip = options.clip
        user_scale = clip.scale if clip.scale is not None else 1
        region = _region(clip.x, clip.y, clip.width, clip.height, user_scale * device_scale_factor)
        # Outside the viewport, a capture that may not go beyond it is left blank, not cropped, so the
        # image always has the clip's size.
        params["captureBeyondViewport"] = options.captureBeyondViewport is not False
    elif options.fullPage:
        size = metrics["cssContentSize"]
        width, height = math.ceil(size["width"]), math.ceil(size["height"])
        # The request model refused what it could know; only the page knows its own size (docs/api.md#limits).
        width, height, warnings = _within_limits(width, height, device_scale_factor, "full page")
        if options.captureBeyondViewport is False:
            # Puppeteer's way without capturing beyond the viewport: make the viewport the whole page.
            page.set_viewport_size(ViewportSize(width=math.ceil(width), height=math.ceil(height)))
        params["captureBeyondViewport"] = options.captureBeyondViewport is not False
        region = _region(0, 0, width, height, device_scale_factor)
    else:
        # The visible area, in CSS pixels; on a mobile page zoomed out to fit, the visual viewport is
        # wider in CSS pixels than the device, and its scale brings it back to the device's size.
        view = metrics["cssVisualViewport"]
        region = _region(
            view["pageX"],
            view["pageY"],
            view["clientWidth"],
            view["clientHeight"],
            view["scale"] * device_scale_factor,
        )
        params["captureBeyondViewport"] = False
    if region["width"] < 1 or region["height"] < 1:
        # Only a page in the middle of navigating away measures 0 (even an empty page has the viewport's
        # size); Chromium would refuse the capture with an internal error.
        raise PageMoving("The page navigated away while it was being captured")
    params["clip"] = region

    if options.omitBackground and options.type in ("png", "webp"):
        cdp.send(
            "Emulation.setDefaultBackgroundColorOverride", {"color": {"r": 0, "g": 0, "b": 0, "a": 0}}
        )
    return base64.b64decode(_send_capture(cdp, params)), warnings, params


# Chromium's answer when the compositor gave it no frame to capture: seen once in 3,000 captures of a
# loaded, live page in the soak (docs/benchmarks.md); the next attempt on the same page succeeds.
_NO_FRAME = "Unable to capture screenshot"


def _send_capture(cdp: CDPSession, params: dict[str, Any]) -> str:
    """Page.captureScreenshot, tried once more when Chromium had no frame to give; a second failure is the
    browser's (502 NAVIGATION_FAILED, refunded like every failure), never a 500."""
    for attempt in (1, 2):
        try:
            return str(cdp.send("Page.captureScreenshot", params)["data"])
        except PlaywrightError as exc:
            if _NO_FRAME not in str(exc):
                raise
            if attempt == 2:
                raise NavigationFailed("The browser could not capture the page (Chromium: unable to "
                                       "capture screenshot, twice)") from exc
        # The same barrier as before the first attempt: a round trip through the renderer, then a new frame.
        cdp.send("Page.getLayoutMetrics")
    raise AssertionError("unreachable")


def _within_limits(
    width: float, height: float, device_scale_factor: float, what: str
) -> tuple[float, float, tuple[str, ...]]:
    """The region cut, from its top left, to docs/api.md#limits's image limits, and the warning that says
    so."""
    fit_width, fit_height = largest_css_size(math.ceil(width), math.ceil(height), device_scale_factor)
    if fit_width >= width and fit_height >= height:
        return width, height, ()
    warning = (f"The {what} ({math.ceil(width)}x{math.ceil(height)} CSS px) exceeds the image limit of "
               f"{MAX_SIDE_PX} px a side and {MAX_PIXELS // 1_000_000} megapixels; it was cut to "
               f"{fit_width}x{fit_height} CSS px from the top left")
    return min(width, fit_width), min(height, fit_height), (warning,)


# The first element the CSS selector matches, as a box in CSS pixels of the page (the clip's coordinates).
_ELEMENT_BOX_JS = """
(selector) => {
  const element = document.querySelector(selector);
  if (!element) return null;
  const box = element.getBoundingClientRect();
  return [box.left + window.scrollX, box.top + window.scrollY, box.width, box.height];
}
"""


def _element_box(page: Page, selector: str) -> tuple[float, float, float, float]:
    try:
        box = page.evaluate(_ELEMENT_BOX_JS, selector)
    except PlaywrightError as exc:
        if is_selector_error(exc):
            raise ElementNotFound(f"'{selector}' is not a valid CSS selector") from None
        raise
    if box is None:
        raise ElementNotFound(f"No element matches the selector '{selector}'")
    x, y, width, height = box
    if width < 1 or height < 1:
        raise ElementNotFound(f"The element matching '{selector}' is not rendered (it has no size)")
    return x, y, width, height


def _region(x: float, y: float, width: float, height: float, scale: float) -> dict[str, float]:
    return {"x": x, "y": y, "width": width, "height": height, "scale": scale}
