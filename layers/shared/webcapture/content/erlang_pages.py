"""Erlang/OTP's documentation (erl_docgen's HTML, known by the `title-anchors` of its headings), rewritten
into the HTML that says what it means before the Markdown writer reads it (docs/markdown.md#erlangotp).

erl_docgen writes inline code as `<span class="code">`, a type or a signature as
`<span class="bold_code">`, and puts a self-link and an "edit on GitHub" link (`div.title-anchors`) in
every heading, a function's heading being its signature (`h4.func-head span.title-name`). Rewritten, code
is `<code>`, a function's heading is its signature as code, and the headings' links are gone.
"""

from __future__ import annotations

from lxml.html import HtmlElement

from webcapture.content.html_tree import remove_keeping_tail


def rewrite(region: HtmlElement) -> None:
    """Rewrite an erl_docgen article region in place (see the module's docstring)."""
    for anchors in list(region.find_class("title-anchors")):
        remove_keeping_tail(anchors)
    for heading in region.find_class("func-head"):
        for name in heading.find_class("title-name"):
            _as_code(name)
    for span in list(region.iter("span")):
        classes = (span.get("class") or "").split()
        if "code" in classes or ("bold_code" in classes and not _inside_code(span)):
            _as_code(span)


def _as_code(element: HtmlElement) -> None:
    """The element as one `<code>` of its words (its links' targets are scripts: erlhref())."""
    text = " ".join(element.text_content().split())
    tail = element.tail
    element.clear()
    element.tag, element.text, element.tail = "code", text, tail


def _inside_code(element: HtmlElement) -> bool:
    return any(up.tag == "code" for up in element.iterancestors())
