"""The bot-wall detector (docs/actions-and-blocked-pages.md#actions-and-blocked-pages) on pages shaped like
each wall, and on pages that only look like one."""

from __future__ import annotations

import pytest

from tests.support.wall_pages import LOOK_ALIKES, WALLS, FixturePage
from webcapture.content.bot_walls import PageSignals, detect_wall, signals_from_html


def _signals(page: FixturePage) -> PageSignals:
    return signals_from_html(page.html, page.status, page.headers)


@pytest.mark.parametrize("page", WALLS, ids=[page.name for page in WALLS])
def test_every_wall_is_found_with_its_vendor(page: FixturePage) -> None:
    wall = detect_wall(_signals(page))
    assert wall is not None
    assert wall.vendor == page.vendor
    assert "allowBlocked" in wall.message()


@pytest.mark.parametrize("page", LOOK_ALIKES, ids=[page.name for page in LOOK_ALIKES])
def test_ordinary_pages_that_look_like_walls_are_not_walls(page: FixturePage) -> None:
    assert detect_wall(_signals(page)) is None


def test_the_challenge_header_alone_is_a_wall() -> None:
    assert detect_wall(PageSignals(status=200, headers={"cf-mitigated": "challenge"})) is not None


def test_a_challenge_title_without_any_of_cloudflares_parts_is_not_a_wall() -> None:
    # A blog post may be titled "Just a moment..."; the challenge's own parts must be there too.
    assert detect_wall(signals_from_html("<title>Just a moment...</title><p>short</p>", 200)) is None


def test_a_datadome_block_is_known_by_its_header_and_status() -> None:
    assert detect_wall(PageSignals(status=403, headers={"x-datadome": "protected"})) is not None
    assert detect_wall(PageSignals(status=200, headers={"x-datadome": "protected"})) is None


def test_perimeterx_block_title_needs_perimeterx_parts() -> None:
    title = "Access to this page has been denied"
    assert detect_wall(PageSignals(status=200, title=title)) is None
    assert detect_wall(PageSignals(status=200, title=title, cookie_names=("_px3",))) is not None


def test_a_captcha_widget_on_a_long_page_is_content_even_with_an_error_status() -> None:
    long_page = PageSignals(status=403, iframe_srcs=("https://www.google.com/recaptcha/api2/anchor",),
                            text="x" * 3000, text_length=50_000)
    assert detect_wall(long_page) is None
    assert detect_wall(PageSignals(status=403, iframe_srcs=long_page.iframe_srcs, text_length=200)) is not None


def test_html_signals_read_titles_sources_markers_and_text() -> None:
    signals = _signals(WALLS[0])
    assert signals.title == "Just a moment..."
    assert "challenge-form" in signals.markers and "_cf_chl_opt" in signals.markers
    assert "window._cf_chl_opt" not in signals.text  # scripts are not text
    assert signals.text_length < 500


def test_every_marker_and_source_word_holds_an_anchor() -> None:
    from webcapture.content import bot_walls

    words = (*bot_walls.INLINE_MARKERS, *bot_walls.MARKER_IDS, *bot_walls.MARKER_CLASSES,
             *bot_walls._SOURCE_WORDS)
    assert all(any(anchor in word for anchor in bot_walls.ANCHORS) for word in words)
