"""The screenshot core against real Chromium (the unpacked sparticuz build) and loopback fixture pages.

Pixels are read with the small PNG decoder in tests.support.png_pixels (zlib only), so no imaging library is
needed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from tests.support.fixture_server import (  # noqa: F401 - fixtures
    FixtureHttpServer,
    egress_allows_fixtures_fixture,
    fixture_server_fixture,
)
from tests.support.png_pixels import Pixels, decode_png
from webcapture.browser import Screenshot, resolve_chromium, take_screenshot
from webcapture.models.requests import ScreenshotRequest


def shoot(url: str, **body: Any) -> Screenshot:
    return take_screenshot(ScreenshotRequest.model_validate({"url": url, **body}))


# -- sizes ------------------------------------------------------------------------------------------------

SIZE_CASES = [
    # (viewport, screenshotOptions, expected width, height); tall.html is 3000 CSS px tall.
    ({}, {}, 1280, 3000),  # defaults: 1280x800, fullPage true
    ({}, {"fullPage": False}, 1280, 800),
    ({"width": 800, "height": 600, "deviceScaleFactor": 2}, {"fullPage": False}, 1600, 1200),
    ({"width": 800, "height": 600, "deviceScaleFactor": 0.5}, {"fullPage": False}, 400, 300),
    ({"width": 640, "height": 480, "deviceScaleFactor": 2}, {"fullPage": True}, 1280, 6000),
    ({}, {"clip": {"x": 200, "y": 300, "width": 100, "height": 100}}, 100, 100),
    ({"deviceScaleFactor": 2}, {"clip": {"x": 200, "y": 300, "width": 100, "height": 100}}, 200, 200),
    ({}, {"clip": {"x": 200, "y": 300, "width": 100, "height": 100, "scale": 1.5}}, 150, 150),
    ({"deviceScaleFactor": 3}, {"clip": {"x": 0, "y": 0, "width": 100, "height": 40, "scale": 0.5}}, 150, 60),
    # clip wins over fullPage
    ({}, {"fullPage": True, "clip": {"x": 0, "y": 2500, "width": 300, "height": 200}}, 300, 200),
    # isLandscape swaps a portrait viewport, keeps a landscape one, and false never swaps
    ({"width": 400, "height": 800, "isLandscape": True}, {"fullPage": False}, 800, 400),
    ({"width": 1000, "height": 500, "isLandscape": True}, {"fullPage": False}, 1000, 500),
    ({"width": 400, "height": 800, "isLandscape": False}, {"fullPage": False}, 400, 800),
    (
        {"width": 400, "height": 800, "isLandscape": True, "deviceScaleFactor": 2},
        {"fullPage": False},
        1600,
        800,
    ),
    (
        {"width": 375, "height": 667, "isMobile": True, "hasTouch": True, "deviceScaleFactor": 2},
        {"fullPage": False},
        750,
        1334,
    ),
]


@pytest.mark.parametrize(("viewport", "options", "width", "height"), SIZE_CASES)
def test_image_size(
    fixture_server: FixtureHttpServer,
    viewport: dict[str, Any],
    options: dict[str, Any],
    width: int,
    height: int,
) -> None:
    shot = shoot(fixture_server.url("/tall.html"), viewport=viewport, screenshotOptions=options)
    assert (shot.width, shot.height) == (width, height)
    pixels = decode_png(shot.image)  # the header agrees, and the raster holds exactly that many pixels
    assert (pixels.width, pixels.height) == (width, height)


def test_result_fields(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/tall.html")
    shot = shoot(url, screenshotOptions={"fullPage": False})
    assert (shot.format, shot.content_type, shot.status_code) == ("png", "image/png", 200)
    assert shot.final_url == shot.requested_url == url
    assert shot.size == len(shot.image) > 0


# -- content ----------------------------------------------------------------------------------------------


def test_clip_captures_the_region_it_names(fixture_server: FixtureHttpServer) -> None:
    # The red marker sits at (200, 300), 100x100 CSS px; at deviceScaleFactor 2 it fills the 200x200 image.
    shot = shoot(
        fixture_server.url("/tall.html"),
        viewport={"deviceScaleFactor": 2},
        screenshotOptions={"clip": {"x": 200, "y": 300, "width": 100, "height": 100}},
    )
    pixels = decode_png(shot.image)
    assert set(pixels.region(0, 0, 200, 200)) == {(255, 0, 0, 255)}


def test_webgl_canvases_are_drawn(fixture_server: FixtureHttpServer) -> None:
    # webgl.html draws only through WebGL: a teal clear colour, then a magenta square from a shader. Lambda
    # has no GPU; SwiftShader (launch_flags) must still run WebGL, or the canvas would be blank (white).
    pixels = decode_png(shoot(fixture_server.url("/webgl.html"), screenshotOptions={"fullPage": False}).image)
    assert pixels.at(20, 20) == (0, 128, 128, 255)  # cleared by gl.clear
    assert pixels.at(200, 150) == (255, 0, 255, 255)  # drawn by the fragment shader
    assert pixels.at(390, 20) == (0, 128, 128, 255) and pixels.at(500, 20) == (255, 255, 255, 255)


def test_full_page_reaches_the_bottom(fixture_server: FixtureHttpServer) -> None:
    # Narrow, so that decoding down to the foot stays quick.
    pixels = decode_png(shoot(fixture_server.url("/tall.html"), viewport={"width": 300}).image)
    assert (pixels.width, pixels.height) == (300, 3000)
    assert pixels.at(50, 2950) == (0, 0, 255, 255)  # the blue marker at the page's foot
    assert pixels.at(250, 2950) == (160, 160, 160, 255)  # third band


def test_full_page_without_capturing_beyond_the_viewport(fixture_server: FixtureHttpServer) -> None:
    # Puppeteer's way: the viewport grows to the page, so the foot is still there.
    shot = shoot(
        fixture_server.url("/tall.html"),
        viewport={"width": 300},
        screenshotOptions={"captureBeyondViewport": False},
    )
    pixels = decode_png(shot.image)
    assert (shot.width, shot.height) == (300, 3000)
    assert pixels.at(50, 2950) == (0, 0, 255, 255)


def test_clip_beyond_the_viewport_needs_capture_beyond_viewport(fixture_server: FixtureHttpServer) -> None:
    clip = {"x": 500, "y": 2500, "width": 50, "height": 50}
    beyond = decode_png(shoot(fixture_server.url("/tall.html"), screenshotOptions={"clip": clip}).image)
    assert set(beyond.region(0, 0, 50, 50)) == {(160, 160, 160, 255)}
    kept_in = shoot(
        fixture_server.url("/tall.html"), screenshotOptions={"clip": clip, "captureBeyondViewport": False}
    )
    pixels = decode_png(kept_in.image)
    assert (pixels.width, pixels.height) == (50, 50)
    assert (160, 160, 160, 255) not in set(pixels.region(0, 0, 50, 50))  # not rendered: blank


def test_device_emulation_reaches_the_page(fixture_server: FixtureHttpServer) -> None:
    # device.html: a red band 375 CSS px wide over a band that turns green for a coarse (touch) pointer.
    url = fixture_server.url("/device.html")
    viewport = {"width": 375, "height": 667}
    desktop = decode_png(shoot(url, viewport=viewport, screenshotOptions={"fullPage": False}).image)
    assert desktop.at(370, 50) == (255, 0, 0, 255)
    assert desktop.at(10, 150) == (0, 0, 0, 255)
    mobile = decode_png(
        shoot(url, viewport={**viewport, "isMobile": True}, screenshotOptions={"fullPage": False}).image
    )
    # Laid out 980 px wide and zoomed out to fit: the band covers well under half of the width.
    assert mobile.at(10, 10) == (255, 0, 0, 255)
    assert mobile.at(200, 10) == (255, 255, 255, 255)
    touch = decode_png(
        shoot(url, viewport={**viewport, "hasTouch": True}, screenshotOptions={"fullPage": False}).image
    )
    assert touch.at(10, 150) == (0, 255, 0, 255)


# -- formats ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "magic"),
    [("png", b"\x89PNG\r\n\x1a\n"), ("jpeg", b"\xff\xd8\xff"), ("webp", b"RIFF")],
)
def test_format_by_magic_bytes(fixture_server: FixtureHttpServer, kind: str, magic: bytes) -> None:
    shot = shoot(fixture_server.url("/tall.html"), screenshotOptions={"type": kind, "fullPage": False})
    assert shot.image.startswith(magic)
    assert shot.format == kind
    assert shot.content_type == f"image/{kind}"
    assert (shot.width, shot.height) == (1280, 800)
    if kind == "webp":
        assert shot.image[8:12] == b"WEBP"


@pytest.mark.parametrize("kind", ["jpeg", "webp"])
def test_quality_changes_the_size(fixture_server: FixtureHttpServer, kind: str) -> None:
    url = fixture_server.url("/links.html", host="localhost")
    sizes = {
        quality: shoot(url, screenshotOptions={"type": kind, "quality": quality, "fullPage": False}).size
        for quality in (5, 95)
    }
    assert sizes[5] * 1.5 < sizes[95]


def test_omit_background_png_is_transparent(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/transparent.html")
    small = {"width": 200, "height": 200}
    clear = decode_png(
        shoot(url, viewport=small, screenshotOptions={"omitBackground": True, "fullPage": False}).image
    )
    assert clear.channels == 4
    assert clear.at(150, 150)[3] == 0  # no page background: transparent
    assert clear.at(10, 10) == (0, 128, 0, 255)  # the box is still painted
    opaque = decode_png(shoot(url, viewport=small, screenshotOptions={"fullPage": False}).image)
    assert opaque.at(150, 150) == (255, 255, 255, 255)


def test_omit_background_webp_has_alpha(fixture_server: FixtureHttpServer) -> None:
    # WebP keeps alpha in an extended (VP8X) file with the alpha flag (0x10) set and an ALPH chunk.
    url = fixture_server.url("/transparent.html")
    clear = shoot(url, screenshotOptions={"type": "webp", "omitBackground": True, "fullPage": False}).image
    assert clear[12:16] == b"VP8X" and clear[20] & 0x10
    assert b"ALPH" in clear
    opaque = shoot(url, screenshotOptions={"type": "webp", "fullPage": False}).image
    assert not (opaque[12:16] == b"VP8X" and opaque[20] & 0x10)


@pytest.mark.parametrize(
    "options",
    [
        {"fromSurface": False},
        {"fromSurface": True},
        {"optimizeForSpeed": True},
        {"captureBeyondViewport": True},
    ],
)
def test_cdp_only_options_produce_a_capture(
    fixture_server: FixtureHttpServer, options: dict[str, Any]
) -> None:
    shot = shoot(
        fixture_server.url("/tall.html"),
        viewport={"width": 300, "height": 200},
        screenshotOptions={"fullPage": False, **options},
    )
    assert (shot.width, shot.height) == (300, 200)
    assert decode_png(shot.image).at(150, 150) == (240, 240, 240, 255)


def test_wait_time_waits_after_load(fixture_server: FixtureHttpServer) -> None:
    # late.html turns its green box blue 300 ms after the load event.
    started = time.monotonic()
    shot = shoot(fixture_server.url("/late.html"), waitTime=1000, screenshotOptions={"fullPage": False})
    assert time.monotonic() - started >= 1.0
    assert decode_png(shot.image).at(10, 10) == (0, 0, 255, 255)


# -- status and redirects ---------------------------------------------------------------------------------


def test_redirects_report_the_final_url(fixture_server: FixtureHttpServer) -> None:
    url = fixture_server.url("/redirect/301")
    shot = shoot(url, screenshotOptions={"fullPage": False})
    assert shot.final_url == fixture_server.url("/plain.html?via=redirect")
    assert shot.requested_url == url
    assert shot.status_code == 200


@pytest.mark.parametrize(
    ("path", "status", "colour"),
    [("/missing", 404, (255, 255, 0, 255)), ("/broken", 500, (0, 255, 255, 255))],
)
def test_error_pages_are_still_captured(
    fixture_server: FixtureHttpServer, path: str, status: int, colour: tuple[int, ...]
) -> None:
    shot = shoot(
        fixture_server.url(path),
        viewport={"width": 300, "height": 200},
        screenshotOptions={"fullPage": False},
    )
    assert shot.status_code == status
    assert decode_png(shot.image).at(150, 150) == colour


# -- fonts ------------------------------------------------------------------------------------------------

CELL = 64  # cjk.html: one glyph per 64x64 cell: 漢 字 日 한 😀 🎉
CJK_CELLS = range(4)
EMOJI_CELLS = (4, 5)


def cells(pixels: Pixels, scale: int = 1) -> list[list[tuple[int, ...]]]:
    size = CELL * scale
    return [pixels.region(i * size, 0, (i + 1) * size, size) for i in range(6)]


def colourful(cell: list[tuple[int, ...]]) -> int:
    return sum(1 for r, g, b, _ in cell if max(r, g, b) - min(r, g, b) > 100)


def inked(cell: list[tuple[int, ...]]) -> int:
    return sum(1 for r, g, b, _ in cell if r + g + b < 600)


def render_without_noto(html: Path, tmp_path: Path) -> Pixels:
    """The same page in the same build, with a fontconfig that knows only the build's Open Sans: the
    rendering a Lambda without our fonts would produce (missing glyphs)."""
    install = resolve_chromium()
    conf = tmp_path / "fonts.conf"
    conf.write_text(
        f'<?xml version="1.0"?><fontconfig><dir>{install.executable.parent / "fonts" / "fonts"}</dir>'
        f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>"
    )
    env: dict[str, str | float | bool] = {
        "PATH": os.environ["PATH"],
        **install.env,
        "FONTCONFIG_FILE": str(conf),
    }
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(install.executable), env=env, args=["--no-zygote"]
        )
        try:
            page = browser.new_page(viewport={"width": 400, "height": 100})
            page.set_content(html.read_text())
            return decode_png(page.screenshot(clip={"x": 0, "y": 0, "width": 6 * CELL, "height": CELL}))
        finally:
            browser.close()


def test_cjk_and_emoji_render_as_glyphs_not_boxes(fixture_server: FixtureHttpServer, tmp_path: Path) -> None:
    shot = shoot(
        fixture_server.url("/cjk.html"),
        screenshotOptions={"clip": {"x": 0, "y": 0, "width": 6 * CELL, "height": CELL}},
    )
    ours = cells(decode_png(shot.image))
    # Every CJK cell has a glyph, and each is a different glyph (missing glyphs all look the same).
    assert all(inked(ours[i]) > 150 for i in CJK_CELLS), [inked(c) for c in ours]
    assert len({tuple(ours[i]) for i in CJK_CELLS}) == len(CJK_CELLS)
    # Colour emoji are in colour; black text and missing-glyph boxes are not.
    assert all(colourful(ours[i]) > 300 for i in EMOJI_CELLS)
    assert all(colourful(ours[i]) == 0 for i in CJK_CELLS)

    # The same page without the Noto fonts: no CJK glyph differs from another, no emoji has colour, and
    # none of it looks like our rendering.
    bare = cells(render_without_noto(Path(__file__).parents[1] / "support" / "pages" / "cjk.html", tmp_path))
    assert len({tuple(bare[i]) for i in CJK_CELLS}) == 1
    assert all(colourful(bare[i]) == 0 for i in EMOJI_CELLS)
    assert all(ours[i] != bare[i] for i in range(6))


@pytest.mark.parametrize("beyond", [True, False])
def test_a_clip_right_after_the_load_never_fails(fixture_server: FixtureHttpServer, beyond: bool) -> None:
    # Chromium used to refuse about one clip in twelve captured straight after the load ("Unable to capture
    # screenshot"); forty in a row would show that more than nineteen times in twenty.
    for _ in range(40):
        shot = shoot(
            fixture_server.url("/plain.html"),
            screenshotOptions={"clip": {"x": 0, "y": 0, "width": 384, "height": 64}, "captureBeyondViewport": beyond},
        )
        assert (shot.width, shot.height) == (384, 64)
