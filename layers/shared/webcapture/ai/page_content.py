"""Rendered HTML to the Markdown the model reads (docs/api.md#ai-extract): main content only, visible text
only.

The main-content step is webcapture.content.main_content (trafilatura on the DOM pruned of everything
hidden); here it is only cut to the model's budget, with the page's title beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

from webcapture.content.main_content import DEFAULT_MAX_TEXT_CHARS, main_content

TRUNCATION_NOTE = "\n\n[Content truncated: the page continues beyond this point.]"
# Text read before the main content is chosen, per character of budget: menus and teasers come first on
# many pages, and the step must still see enough of the page to tell what is main.
_READ_PER_BUDGET_CHAR = 3
_MIN_READ_CHARS = 20_000


@dataclass(frozen=True)
class PageContent:
    """What the model gets to read about the page."""

    url: str
    title: str
    markdown: str
    truncated: bool  # the page had more content than the budget allowed
    budget_chars: int


def page_to_markdown(html: str, url: str, budget_chars: int) -> PageContent:
    """Main visible content of `html` as Markdown, cut to `budget_chars` (no cut when <= 0)."""
    read_chars = DEFAULT_MAX_TEXT_CHARS
    if budget_chars > 0:
        read_chars = min(read_chars, max(budget_chars * _READ_PER_BUDGET_CHAR, _MIN_READ_CHARS))
    page = main_content(html, url, max_text_chars=read_chars)
    markdown, truncated = cut_to_budget(page.markdown, budget_chars, more=page.cut)
    return PageContent(
        url=url, title=page.title, markdown=markdown, truncated=truncated, budget_chars=budget_chars
    )


def cut_to_budget(text: str, budget_chars: int, *, more: bool = False) -> tuple[str, bool]:
    """Cut `text` to at most `budget_chars`, at a line break when one is near, saying that it was cut.

    `more`: the text is already known to be only the start of the content, so it is marked as cut.
    """
    if budget_chars <= 0 or (len(text) <= budget_chars and not more):
        return text, False
    room = max(budget_chars - len(TRUNCATION_NOTE), 0)
    if len(text) <= room:
        return text.rstrip() + TRUNCATION_NOTE, True
    head = text[:room]
    line_end = head.rfind("\n")
    if line_end >= room * 0.8:  # don't throw away more than a fifth to end on a whole line
        head = head[:line_end]
    return (head.rstrip() + TRUNCATION_NOTE)[:budget_chars], True
