"""Debian's python-django-doc (Sphinx with Django's own theme), read as a documentation layout."""

from __future__ import annotations

from tests.support.docs_site import DJANGO_DOCS
from webcapture.content.docs_layouts import docs_article
from webcapture.content.html_tree import parse_page
from webcapture.content.main_content import main_content_markdown
from webcapture.fastpath.rendered_state import as_rendered


def test_every_page_but_the_indexes_has_its_article_read_whole() -> None:
    # Without a known region the generic extractor chose each page's content, and it dropped code blocks
    # that Django's script links template tags in (the browser's) but not the served ones.
    pages = sorted(DJANGO_DOCS.rglob("*.html"))
    assert len(pages) > 600
    regions = {str(page.relative_to(DJANGO_DOCS)): docs_article(parse_page(page.read_text(encoding="utf-8")))
               for page in pages}
    unknown = sorted(name for name, article in regions.items() if article is None)
    assert unknown == ["genindex.html", "search.html"]  # script-built or a bare list of links
    assert {article.region.get("id") for article in regions.values() if article is not None} == {"yui-main"}


def test_a_tutorial_keeps_the_first_tab_of_each_console_example() -> None:
    html = (DJANGO_DOCS / "intro" / "tutorial01.html").read_text(encoding="utf-8")
    url = "https://docs.example/intro/tutorial01.html"
    markdown = main_content_markdown(as_rendered(html), url)
    assert markdown.startswith("# Writing your first Django app, part 1")
    assert "$ python -m django --version" in markdown and "py -m django --version" not in markdown
    # The tabs' labels (an icon font's glyphs, for Linux and macOS, and for Windows) are buttons.
    assert "(indicated by the $ prefix):\n\n```console" in markdown
    # Each block's Windows tab (its prompt is "...\\>") is hidden, as the stylesheet hides it.
    assert as_rendered(html).count('style="display: none">') - html.count('style="display: none">') == 7
    assert "...\\>" not in markdown and "...\\>" in main_content_markdown(html, url)
