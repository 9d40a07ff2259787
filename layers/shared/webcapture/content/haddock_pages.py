"""Haddock's pages (Haskell's API reference, known by its `#package-header`), rewritten into the HTML that
says what they mean before the Markdown writer reads them (docs/markdown.md#haddock).

Haddock names the module in a `<p class="caption">` after the module's info table, labels the page's parts
with more such paragraphs (Description; Constructors, Methods inside a declaration), and writes each
declaration as a `<div class="top">` whose first line, `<p class="src">`, is its signature, followed by a
link to its source and a `#` self-link. What its stylesheet hides (some of these labels) the fetch hides as
the browser does (fastpath.rendered_state). Rewritten, the module's name is the page's `#` heading, each
label of the page a heading, and each declaration a signature with its description, as Sphinx's API
entries are written.
"""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

from webcapture.content.html_tree import remove_keeping_tail, replace_keeping_tail

_SIGNATURE = "sig"  # the class the writer reads a definition term as code by (markdown_writer._term)


def rewrite(region: HtmlElement) -> None:
    """Rewrite a Haddock article region in place (see the module's docstring)."""
    for caption in region.find_class("caption"):
        if caption.tag != "p":
            continue
        parent = caption.getparent()
        if parent is not None and parent.get("id") == "module-header":
            caption.tag = "h1"
            caption.tail = None
            parent.remove(caption)
            region.insert(0, caption)
        elif not any("top" in (up.get("class") or "").split() for up in caption.iterancestors("div")):
            caption.tag = "h2"  # a label of the page's parts; inside a declaration (Constructors), a line
    for declaration in region.find_class("top"):
        _as_signature(declaration)


def _as_signature(declaration: HtmlElement) -> None:
    """`<div class="top"><p class="src">…</p>…</div>` as `<dl><dt class="sig">…</dt><dd>…</dd></dl>`."""
    source = next(iter(declaration), None)
    if source is None or source.tag != "p" or "src" not in (source.get("class") or "").split():
        return
    for link in [a for a in source.iter("a") if "link" in (a.get("class") or "").split()]:
        remove_keeping_tail(link)  # "Source": the declaration's code, another page
    entry = etree.Element("dl")
    declaration.remove(source)
    source.tag, source.attrib["class"] = "dt", _SIGNATURE
    source.tail = None
    entry.append(source)
    description = etree.SubElement(entry, "dd")
    description.text = declaration.text
    description.extend(list(declaration))
    replace_keeping_tail(declaration, [entry])
