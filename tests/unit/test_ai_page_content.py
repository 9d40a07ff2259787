"""Page to model input: main content only, visible text only, Markdown, cut to the budget."""

from __future__ import annotations

import pytest
from lxml.html import fragment_fromstring

from tests.support.ai_pages import INJECTION_MARKERS, INJECTION_PAGE, PRODUCT_PAGE, PRODUCT_PRICE
from webcapture.ai.page_content import TRUNCATION_NOTE, cut_to_budget, page_to_markdown
from webcapture.content.visibility import hides


def test_product_page_keeps_main_content_as_markdown() -> None:
    page = page_to_markdown(PRODUCT_PAGE, "https://shop.example/p/tb2", 10_000)

    assert page.title == "Trailblazer 2 Hiking Boot | Example Outdoor"
    assert page.markdown.startswith("# Trailblazer 2 Hiking Boot")
    assert f"Price: **{PRODUCT_PRICE}**" in page.markdown
    # Underscores are not escaped: the model must read values verbatim.
    assert "trail_blazer_2" in page.markdown
    # Links and images absolute against the page URL.
    assert "[Add to cart](https://shop.example/cart?add=tb2)" in page.markdown
    # Images are not main content: their alt texts cost precision on the main-content benchmark.
    assert "tb2.jpg" not in page.markdown
    assert not page.truncated


@pytest.mark.parametrize("word", ["SCRIPT_TEXT", "SIDEBAR_TEXT", "FOOTER_TEXT", "Men", "Women", "promo"])
def test_product_page_drops_scripts_styles_and_chrome(word: str) -> None:
    page = page_to_markdown(PRODUCT_PAGE, "https://shop.example/p/tb2", 10_000)
    assert word not in page.markdown


def test_hidden_injections_are_removed() -> None:
    page = page_to_markdown(INJECTION_PAGE, "https://shop.example/p/tb2", 10_000)
    for marker in INJECTION_MARKERS:
        assert marker not in page.markdown
    assert "Visible description: sturdy boot." in page.markdown
    assert PRODUCT_PRICE in page.markdown


@pytest.mark.parametrize(
    ("html", "hidden"),
    [
        ("<p hidden>x</p>", True),
        ('<p hidden="until-found">x</p>', True),
        ('<p aria-hidden="TRUE">x</p>', True),
        ('<p aria-hidden="false">x</p>', False),
        ('<p style="display:none">x</p>', True),
        ('<p style="DISPLAY : none !important">x</p>', True),
        ('<p style="display:block">x</p>', False),
        ('<p style="visibility:collapse">x</p>', True),
        ('<p style="opacity:0.0">x</p>', True),
        ('<p style="opacity:0.5">x</p>', False),
        ('<p style="font-size:0px">x</p>', True),
        ('<p style="font-size:10px">x</p>', False),
        ('<p style="content-visibility: hidden">x</p>', True),
        ('<input type="hidden" value="x">', True),
        ("<dialog>x</dialog>", True),
        ("<dialog open>x</dialog>", False),
        ("<p>x</p>", False),
    ],
)
def test_hides(html: str, hidden: bool) -> None:
    element = fragment_fromstring(html)
    assert hides(element.tag, dict(element.attrib)) is hidden


def test_page_header_and_navigation_are_not_main_content() -> None:
    html = """<body><header>SITE BANNER</header>
    <section><header><h2>Section title</h2></header><p>Body text.</p></section>
    <div role="navigation">MENU</div><div role="banner">BANNER ROLE</div></body>"""
    markdown = page_to_markdown(html, "https://e.example/", 0).markdown
    assert "Body text." in markdown
    for chrome in ("SITE BANNER", "MENU", "BANNER ROLE"):
        assert chrome not in markdown


def test_main_is_preferred_over_the_rest_of_the_body() -> None:
    html = "<body><div>Cookie notice OUTSIDE</div><div role='main'><p>The real content.</p></div></body>"
    markdown = page_to_markdown(html, "https://e.example/", 0).markdown
    assert markdown == "The real content."


def test_a_small_article_does_not_replace_the_page() -> None:
    # A product page that marks only a review as <article> must keep the product.
    html = (
        "<head><title>Product X | Shop</title></head><body><h1>Product X</h1><p>"
        + "Specs and price 10 EUR. " * 20
        + "</p><article><p>Great product, 5 stars.</p></article></body>"
    )
    page = page_to_markdown(html, "https://e.example/", 0)
    assert page.title == "Product X | Shop"  # the model reads the title beside the content
    assert "Product X" in page.markdown
    assert "Specs and price 10 EUR." in page.markdown
    assert "Great product" in page.markdown


def test_a_dominant_article_is_used() -> None:
    html = "<body><div>Share this!</div><article><p>" + "Story text. " * 50 + "</p></article></body>"
    markdown = page_to_markdown(html, "https://e.example/", 0).markdown
    assert "Share this!" not in markdown
    assert markdown.startswith("Story text.")


def test_a_page_that_is_only_chrome_still_gives_its_visible_text() -> None:
    html = "<body><nav><a href='/a'>Only a menu</a></nav><p hidden>secret</p></body>"
    markdown = page_to_markdown(html, "https://e.example/x/", 0).markdown
    assert markdown == "[Only a menu](https://e.example/a)"


def test_script_links_are_dropped() -> None:
    html = """<main><p>Write to us: <a href="javascript:steal()">Click</a> or
    <a href="mailto:a@b.example">Mail</a>, or follow <a href="/news">the news</a>.</p>
    <img src="data:image/png;base64,AAAAAAAA" alt="inline logo"> <img src="data:x"></main>"""
    markdown = page_to_markdown(html, "https://e.example/", 0).markdown
    assert "javascript" not in markdown
    assert "Click" in markdown
    assert "[the news](https://e.example/news)" in markdown
    assert "base64" not in markdown


def test_base_href_is_honoured() -> None:
    html = '<head><base href="https://cdn.example/assets/"></head><main><a href="x.html">X</a></main>'
    assert (
        "[X](https://cdn.example/assets/x.html)" in page_to_markdown(html, "https://e.example/", 0).markdown
    )


def test_budget_cut_reports_truncation() -> None:
    paragraphs = "\n".join(f"<p>Paragraph number {i} with some words.</p>" for i in range(200))
    page = page_to_markdown(f"<main>{paragraphs}</main>", "https://e.example/", 500)
    assert page.truncated
    assert len(page.markdown) <= 500
    assert page.markdown.endswith(TRUNCATION_NOTE)
    # Cut at a line end: the last kept paragraph is whole.
    last_line = page.markdown[: -len(TRUNCATION_NOTE)].rstrip().splitlines()[-1]
    assert last_line.endswith("with some words.")


def test_cut_to_budget_without_line_breaks_and_within_budget() -> None:
    assert cut_to_budget("abc", 10) == ("abc", False)
    assert cut_to_budget("abc", 0) == ("abc", False)
    # Known to be only the start of the content: kept whole, but marked as cut.
    assert cut_to_budget("line one\nline two", 100, more=True) == (
        "line one\nline two" + TRUNCATION_NOTE,
        True,
    )
    cut, truncated = cut_to_budget("x" * 1000, 200)
    assert truncated
    assert len(cut) == 200
    assert cut.startswith("x" * 100)


def test_a_huge_page_is_cut_before_conversion_and_marked() -> None:
    items = "".join(
        f"<div><h2>Item {i}</h2><p>Text of item {i}, price ${i}.</p></div>" for i in range(20_000)
    )
    page = page_to_markdown(f"<body><main>{items}</main></body>", "https://e.example/", 2_000)
    assert page.truncated
    assert len(page.markdown) <= 2_000
    assert page.markdown.startswith("## Item 0\n\nText of item 0, price $0.")
    assert "Item 4999" not in page.markdown
    assert page.markdown.endswith(TRUNCATION_NOTE)


def test_absurdly_deep_nesting_still_gives_the_text() -> None:
    html = "<div>" * 5000 + "<p>Deep text</p>" + "</div>" * 5000 + "<p hidden>INJECTED</p>"
    page = page_to_markdown(html, "https://e.example/", 1_000)
    assert page.markdown == "Deep text"


def test_processing_instructions_and_cdata_are_not_text() -> None:
    html = "<?xml version='1.0'?><main><p>Words before and <![CDATA[CDATA-TEXT]]> after.</p></main>"
    markdown = page_to_markdown(html, "https://e.example/", 0).markdown
    assert "Words before" in markdown
    assert "xml version" not in markdown
    assert "CDATA-TEXT" not in markdown
