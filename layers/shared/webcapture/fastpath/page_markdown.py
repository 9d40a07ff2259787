"""The one call from the fast path into the Markdown conversion (webcapture.content), so that the fast path
and the browser make the same Markdown from the same HTML with the same main-content step."""

from __future__ import annotations


def html_to_markdown(html: str, url: str, only_main_content: bool) -> str:
    """The page's main content (or, with `only_main_content` false, all of it) as Markdown."""
    from webcapture.content.main_content import full_page_markdown, main_content_markdown

    return main_content_markdown(html, url) if only_main_content else full_page_markdown(html, url)
