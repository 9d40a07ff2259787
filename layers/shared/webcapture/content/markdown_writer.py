"""An lxml tree as CommonMark (with GFM tables): the one conversion every Markdown output goes through.

The rules are docs/markdown.md's: inline code stays a code span wherever it sits (headings, links, table
cells); only <pre> makes a fenced block, and its fence names the language the page names; tables keep their
header and every row; a definition list is a list of terms, each with its definition indented below it;
an admonition is a blockquote that starts with its label; headings lose their permalink marks. Plain text is
not escaped: the model reads values (snake_case names, prices with asterisks) verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from lxml import etree

BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog",
    "div",
    "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "p", "pre", "search",
    "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CODE_TAGS = frozenset({"code", "kbd", "samp", "tt"})
# Links that only mark a heading or definition as linkable: Sphinx, MkDocs, Docusaurus, GitHub, Node.
_PERMALINK_CLASSES = frozenset({
    "headerlink", "anchor", "hash-link", "headeranchor", "mark", "permalink", "anchorjs-link",
    "header-anchor",
    "heading-anchor", "anchor-link", "md-anchor",
})  # fmt: skip
_PERMALINK_TEXTS = frozenset({"", "¶", "#", "§", "🔗", "\u200b"})
# Or one icon font's glyph, which fonts keep in Unicode's private use area (MkDocs' theme writes one).
_ICON_GLYPHS = ("\ue000", "\uf8ff")
# Admonitions: Sphinx and MkDocs (admonition), Docusaurus (theme-admonition), GitHub (markdown-alert),
# DocBook and Publican (note, warning, ... on a div), AsciiDoc (admonitionblock).
_ADMONITION_KINDS = ("note", "warning", "tip", "caution", "important", "danger", "hint", "attention", "error",
                     "seealso", "info")
_ADMONITION_CLASSES = frozenset({"admonition", "admonitionblock", "theme-admonition", "markdown-alert",
                                 *_ADMONITION_KINDS})
_ADMONITION_TITLE_CLASSES = frozenset({"admonition-title", "title", "markdown-alert-title",
                                       "admonition_header",
                                       "admonition-heading"})
# What only numbers the lines of a code block or copies it: not code.
_NOT_CODE_CLASSES = frozenset({"linenos", "lineno", "linenodiv", "gutter", "line-numbers-rows", "copybutton"})
_LANGUAGE_CLASS = re.compile(r"^(?:language|lang|highlight)-(.+)$")
_BRUSH = re.compile(r"brush:\s*([\w+#.-]+)")
_NOT_A_LANGUAGE = frozenset({"default", "none", "notranslate", "plaintext"})
# Whitespace a run of which becomes one space: the other kinds are made spaces, then runs of spaces are
# collapsed, by a pattern whose literal start ("  ") lets the regex engine skip to each run.
_OTHER_SPACE = str.maketrans("\t\n\r\f\v", "     ")
_SPACES = re.compile("  +")
_BACKTICKS = re.compile(r"`+")
_BLANK_RUNS = re.compile(r"\n{3,}")
_RULE = "---"  # a thematic break (<hr>)
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_DESCENDANT_CLASSES = etree.XPath("descendant::*/@class", smart_strings=False)


def to_markdown(root: etree._Element, *, images: bool = True) -> str:
    """`root`'s content as Markdown; a tree too deep to walk gives its text, without layout."""
    try:
        blocks = _Writer(images).blocks(root)
    except RecursionError:
        return "\n".join(line.strip() for line in root.itertext() if line.strip())
    markdown = "\n\n".join(_between_content(block for block in blocks if block.strip()))
    return (_BLANK_RUNS.sub("\n\n", markdown) if "\n\n\n" in markdown else markdown).strip()


def _between_content(blocks: Iterable[str]) -> list[str]:
    """The blocks without a rule that separates nothing: one before anything else (where "---" would also
    open YAML front matter for many Markdown tools), after everything else (the <hr> of an empty footnotes
    section), or right after another rule."""
    kept: list[str] = []
    for block in blocks:
        if block != _RULE or (kept and kept[-1] != _RULE):
            kept.append(block)
    if kept and kept[-1] == _RULE:
        kept.pop()
    return kept


def classes(element: etree._Element) -> set[str]:
    return set((element.get("class") or "").split())


def code_span(text: str) -> str:
    """`text` as one code span; whitespace around it stays outside, backticks inside stay literal."""
    inner = _collapsed(text)
    core = inner.strip()
    if not core:
        return inner
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(core)), default=0) + 1) if "`" in core else "`"
    pad = " " if core.startswith("`") or core.endswith("`") else ""
    lead = " " if inner.startswith(" ") else ""
    trail = " " if inner.endswith(" ") else ""
    return f"{lead}{fence}{pad}{core}{pad}{fence}{trail}"


def code_language(pre: etree._Element, wrapper: etree._Element | None = None) -> str:
    """The language the page names for a <pre>: on it, its <code>, or the wrappers a highlighter adds
    (from `wrapper` up, when the <pre> sits in a table of numbered lines)."""
    candidates = [pre, *(child for child in pre if child.tag == "code")]
    ancestor = pre.getparent() if wrapper is None else wrapper
    for _ in range(3):
        if ancestor is None or ancestor.tag in ("body", "main", "article", "section", "td", "li", "dd"):
            break
        candidates.append(ancestor)
        ancestor = ancestor.getparent()
    for element in candidates:
        named = element.get("data-lang") or element.get("data-language")
        if named and named.strip().lower() not in _NOT_A_LANGUAGE:
            return str(named).strip()
        cls = element.get("class") or ""
        brush = _BRUSH.search(cls)
        if brush:
            return brush.group(1)
        for token in cls.split():
            match = _LANGUAGE_CLASS.match(token)
            if match:
                language = match.group(1).removeprefix("source-")  # GitHub: highlight-source-python
                if language.startswith("text-html"):
                    language = "html"
                if language.lower() not in _NOT_A_LANGUAGE:
                    return language
        if element.tag == "pre" and "rust" in cls.split():  # rustdoc
            return "rust"
    return ""


def is_permalink(anchor: etree._Element) -> bool:
    cls = anchor.get("class")
    if cls and not _PERMALINK_CLASSES.isdisjoint(cls.split()):
        return True
    if "#" not in (anchor.get("href") or ""):
        return False
    text = _string(anchor).strip()
    return text in _PERMALINK_TEXTS or (len(text) == 1 and _ICON_GLYPHS[0] <= text <= _ICON_GLYPHS[1])


class _Writer:
    def __init__(self, images: bool) -> None:
        self.images = images
        self.skip: set[etree._Element] = set()  # already written elsewhere (an admonition's label)
        self.in_admonition = False
        self.texts: dict[str, str] = {}  # a page's text repeats: line breaks between tags, ", ", " and "
        self.links = 0  # links written so far: one inside a link makes that link its text

    def text(self, text: str) -> str:
        written = self.texts.get(text)
        if written is None:
            written = self.texts[text] = _text(text)
        return written

    # Blocks: each a string, joined by blank lines.

    def blocks(self, element: etree._Element) -> list[str]:
        """The content of `element` (not the element's own markup) as blocks."""
        out: list[str] = []
        run: list[str] = []
        if element.text:
            run.append(self.text(element.text))
        skip = self.skip
        for child in element:
            tag = child.tag
            if skip and child in skip:
                pass
            elif isinstance(tag, str) and (tag in BLOCK_TAGS or _holds_blocks(child, tag)):
                self._flush(run, out)
                out.extend(self.block(child))
            else:
                run.append(self.inline(child))
            if child.tail:
                run.append(self.text(child.tail))
        self._flush(run, out)
        return out

    @staticmethod
    def _flush(run: list[str], out: list[str]) -> None:
        if run:
            text = _paragraph("".join(run))
            if text:
                out.append(text)
            run.clear()

    def block(self, element: etree._Element) -> list[str]:
        tag = element.tag
        if tag in _HEADINGS:
            text = self.line(element).rstrip("¶§\u200b ").strip()
            return [f"{'#' * _HEADINGS[tag]} {text}"] if text else []
        if tag == "pre":
            return self.pre(element)
        if tag in ("ul", "ol", "menu"):
            return self.list_items(element, ordered=tag == "ol")
        if tag == "dl":
            return self.definitions(element)
        if tag == "table":
            return self.table(element)
        if tag == "hr":
            return [_RULE]
        if tag == "blockquote" or (not self.in_admonition and self._is_admonition(element)):
            return self.quote(element)
        return self.blocks(element)

    def _is_admonition(self, element: etree._Element) -> bool:
        if element.tag not in ("div", "aside", "section", "details"):
            return False
        tokens = classes(element)
        return not tokens.isdisjoint(_ADMONITION_CLASSES) or any(
            token.startswith(("theme-admonition-", "markdown-alert-")) for token in tokens
        )

    def quote(self, element: etree._Element) -> list[str]:
        label = ""
        body_root = element
        if element.tag != "blockquote":
            label, title = self._admonition_label(element)
            if title is not None:
                self.skip.add(title)
            asciidoc_body = next((cell for cell in element.iter("td") if "content" in classes(cell)), None)
            if asciidoc_body is not None:
                body_root = asciidoc_body
        outer = self.in_admonition
        self.in_admonition = element.tag != "blockquote"
        try:
            body = self.blocks(body_root)
        finally:
            self.in_admonition = outer
        if label:
            body.insert(0, f"**{label}**")
        text = "\n\n".join(body)
        if not text.strip():
            return []
        return ["\n".join(f"> {line}" if line else ">" for line in text.split("\n"))]

    def _admonition_label(self, element: etree._Element) -> tuple[str, etree._Element | None]:
        for candidate in element.iter():
            if candidate is element or not isinstance(candidate.tag, str):
                continue
            tokens = classes(candidate)
            if (
                candidate.tag == "summary"
                or not tokens.isdisjoint(_ADMONITION_TITLE_CLASSES)
                or any("admonitionHeading" in token for token in tokens)
            ):
                text = " ".join(_string(candidate).split()).rstrip(":")
                if text:
                    return text, candidate
        for token in sorted(classes(element)):
            kind = token.removeprefix("theme-admonition-").removeprefix("markdown-alert-")
            if kind in _ADMONITION_KINDS:
                return ("See also" if kind == "seealso" else kind.capitalize()), None
        return "", None

    def pre(self, element: etree._Element, wrapper: etree._Element | None = None) -> list[str]:
        code = _pre_text(element).strip("\n").rstrip()
        if not code.strip():
            return []
        fence = "`" * max(3, max((len(run) for run in _BACKTICKS.findall(code)), default=0) + 1)
        return [f"{fence}{code_language(element, wrapper)}\n{code}\n{fence}"]

    def list_items(self, element: etree._Element, *, ordered: bool) -> list[str]:
        try:
            number = int(element.get("start") or 1)
        except ValueError:
            number = 1
        items: list[str] = []
        for child in element:
            if child in self.skip or not isinstance(child.tag, str):
                continue
            content = self.blocks(child) if child.tag == "li" else self.block(child)
            text = "\n\n".join(content)
            if child.tag != "li" and items and text:  # a list nested directly in a list: the item before's
                items[-1] += "\n\n" + _indent(text, 2)
                continue
            if not text:
                continue
            marker = f"{number}." if ordered else "-"
            number += 1
            items.append(f"{marker} " + _indent(text, len(marker) + 1).lstrip(" "))
        return ["\n".join(items)] if items else []

    def definitions(self, element: etree._Element) -> list[str]:
        entries: list[tuple[list[str], list[str]]] = []
        for child in element:
            if child.tag == "div":  # HTML allows <div> groups of <dt>/<dd>
                for grouped in child:
                    self._definition_part(grouped, entries)
            else:
                self._definition_part(child, entries)
        items = []
        for terms, definitions in entries:
            head = "\\\n".join(terms) if terms else ""
            body = "\n\n".join(definitions)
            text = f"{head}\n\n{body}" if head and body else head or body
            if text.strip():
                items.append("- " + _indent(text, 2).lstrip(" "))
        return ["\n".join(items)] if items else []

    def _definition_part(self, part: etree._Element, entries: list[tuple[list[str], list[str]]]) -> None:
        if part.tag == "dt":
            term = self._term(part)
            if not entries or entries[-1][1]:
                entries.append(([], []))
            if term:
                entries[-1][0].append(term)
        elif part.tag == "dd":
            if not entries:
                entries.append(([], []))
            entries[-1][1].extend(self.blocks(part))

    def _term(self, dt: etree._Element) -> str:
        if not classes(dt).isdisjoint({"sig", "sig-object"}):  # Sphinx: an API signature is code
            text = "".join(_texts_outside(dt, _permalink_in_term, ("a",))).strip().rstrip("¶")
            return code_span(text).strip()
        return self.line(dt)

    def table(self, element: etree._Element) -> list[str]:
        if "highlighttable" in classes(element):  # Sphinx's numbered lines: the code without the numbers
            return [block for pre in element.iter("pre") if "linenos" not in classes(pre.getparent())
                    for block in self.pre(pre, element)]
        if next(element.iterdescendants("table"), None) is not None:  # a layout table: its cells are blocks
            return [block for row in _rows(element) for cell in row for block in self.blocks(cell)]
        out: list[str] = []
        caption = element.find("caption")
        if caption is not None:
            text = self.line(caption)
            if text:
                out.append(text)
        rows = []
        for row in _rows(element):
            cells = []
            for cell in row:
                cells.append(self.line(cell).replace("|", "\\|"))
                try:
                    span = min(int(cell.get("colspan") or 1), 50)
                except ValueError:
                    span = 1
                cells.extend([""] * (span - 1))
            if any(cells):
                rows.append(cells)
        if not rows:
            return out
        width = max(len(row) for row in rows)
        lines = []
        for index, row in enumerate(rows):
            row = row + [""] * (width - len(row))
            lines.append("| " + " | ".join(row) + " |")
            if index == 0:
                lines.append("|" + " --- |" * width)
        out.append("\n".join(lines))
        return out

    # Inline content: one string, spaces collapsed; "\n" only for <br>.

    def line(self, element: etree._Element) -> str:
        """The content of `element` on one line (headings, table cells, terms)."""
        return _single_spaced(self.inline_content(element).replace("\n", " ")).strip()

    def inline_content(self, element: etree._Element) -> str:
        parts = [self.text(element.text)] if element.text else []
        for child in element:
            if child not in self.skip:
                parts.append(self.inline(child))
            if child.tail:
                parts.append(self.text(child.tail))
        return "".join(parts)

    def inline(self, element: etree._Element) -> str:
        tag = element.tag
        if not isinstance(tag, str):
            return ""
        if tag in _CODE_TAGS:
            anchors = [a for a in element.iter() if a.tag == "a" and a.get("href")]  # few: no tag matcher
            code = _string(element)
            text = code_span(code)
            if len(anchors) == 1 and _string(anchors[0]).strip() == code.strip():
                self.links += 1
                return f"[{text.strip()}]({_destination(anchors[0].get('href', ''))})"
            return text
        if tag == "br":
            return "\n"
        if tag == "a":
            if is_permalink(element):
                return ""
            before = self.links
            inner = self.inline_content(element)
            href = element.get("href")
            if not href or not inner.strip() or self.links > before:
                # A link holding a link (DocBook's glossary terms nest them) is its content: CommonMark
                # links hold no link, and a browser ends the outer one where the inner one starts.
                return inner
            self.links += 1
            return _around(inner, f"[{inner.strip()}]({_destination(href)})")
        if tag in ("strong", "b"):
            return _wrap(self.inline_content(element), "**")
        if tag in ("em", "i"):
            return _wrap(self.inline_content(element), "*")
        if tag in ("del", "s", "strike"):
            return _wrap(self.inline_content(element), "~~")
        if tag == "img":
            src = element.get("src")
            return f"![{' '.join((element.get('alt') or '').split())}]({_destination(src)})" if src else ""
        if tag == "pre":
            return code_span(_pre_text(element))
        if tag in BLOCK_TAGS:  # a block inside a heading or a table cell: its text, set apart
            return f" {self.inline_content(element)} "
        return self.inline_content(element)


def _holds_blocks(element: etree._Element, tag: str) -> bool:
    """Whether an inline element wraps blocks (a card link around a heading): then it is written as its
    blocks. Most inline elements hold no element at all, and need no search."""
    # A Python test of each descendant: an inline element holds few, and lxml's search by forty tag names
    # sets its matcher up anew on every call.
    return (len(element) > 0 and tag not in _CODE_TAGS
            and any(descendant.tag in BLOCK_TAGS for descendant in element.iterdescendants()))


def _text(text: str) -> str:
    """Page text as Markdown text: spaces collapsed, and a "<" that a renderer would take for the start of
    an HTML tag (`<pathspec>`) escaped; nothing else is escaped."""
    text = _collapsed(text)
    return _TAG_START.sub(r"\\<", text) if "<" in text else text  # most text has none: skip the search


def _paragraph(text: str) -> str:
    if "\n" not in text:  # most runs are one line
        return _single_spaced(text).strip()
    lines = (_single_spaced(line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def _collapsed(text: str) -> str:
    """Every run of whitespace as one space."""
    if "\n" in text or "\t" in text or "\r" in text or "\f" in text or "\v" in text:
        text = text.translate(_OTHER_SPACE)
    return _SPACES.sub(" ", text) if "  " in text else text  # searches in C: most text needs no change


def _single_spaced(text: str) -> str:
    return _SPACES.sub(" ", text) if "  " in text else text  # a search in C finds none in most text


def _indent(text: str, width: int) -> str:
    pad = " " * width
    return "\n".join(pad + line if line else "" for line in text.split("\n"))


def _wrap(inner: str, mark: str) -> str:
    return _around(inner, f"{mark}{inner.strip()}{mark}") if inner.strip() else inner


def _around(inner: str, written: str) -> str:
    """`written` with the whitespace `inner` had on either side kept outside it."""
    lead = " " if inner[:1].isspace() else ""
    trail = " " if inner[-1:].isspace() else ""
    return f"{lead}{written}{trail}"


def _destination(url: str) -> str:
    return f"<{url}>" if " " in url or "<" in url or ">" in url else url


def _pre_text(pre: etree._Element) -> str:
    """The code of a <pre>: <br> as line breaks; line numbers and copy buttons left out."""
    if next(pre.iterdescendants("br", "button"), None) is None and all(
        _NOT_CODE_CLASSES.isdisjoint(value.split()) for value in set(_DESCENDANT_CLASSES(pre))
    ):
        return _string(pre)  # nothing in it is left out: its text as it is, joined in C
    return "".join(_texts_outside(pre, _not_code))


def _permalink_in_term(element: etree._Element) -> bool:
    return element.tag == "a" and is_permalink(element)


def _not_code(element: etree._Element) -> bool:
    if element.tag == "button":
        return True
    cls = element.get("class")
    return bool(cls) and not _NOT_CODE_CLASSES.isdisjoint(cls.split())


def _texts_outside(element: etree._Element, excluded: Callable[[etree._Element], bool],
                   only: tuple[str, ...] = ()) -> list[str]:
    """The texts inside `element`, <br> as "\\n", less what is inside the descendants `excluded` picks;
    `only`: the tags `excluded` can pick (none named: any)."""
    texts: list[str] = []
    _collect_texts(element, excluded, only, texts)
    return texts


def _collect_texts(element: etree._Element, excluded: Callable[[etree._Element], bool], only: tuple[str, ...],
                   texts: list[str]) -> None:
    # Appends to one list: nested generators would pass every text up through each level of nesting.
    if element.text:
        texts.append(element.text)
    for child in element:
        tag = child.tag
        if isinstance(tag, str):
            if tag == "br":
                texts.append("\n")
            elif only and tag not in only and next(child.iterdescendants("br", *only), None) is None:
                texts.append(_string(child) if len(child) else child.text or "")  # nothing below is left out
            elif not excluded(child):
                _collect_texts(child, excluded, only, texts)
        if child.tail:
            texts.append(child.tail)


def _string(element: etree._Element) -> str:
    """The text of the element and every descendant, with their tails (not its own tail), joined in C (the
    string-value XPath's string() gives, without an XPath evaluation's setup for each element)."""
    return str(etree.tostring(element, method="text", encoding=str, with_tail=False))


def _rows(table: etree._Element) -> list[list[etree._Element]]:
    """The table's rows (header, body, footer sections or bare), each as its cells; nested tables apart."""
    rows = []
    for child in table:
        if child.tag in ("thead", "tbody", "tfoot"):
            sections: Iterable[etree._Element] = child
        elif child.tag == "tr":
            sections = [child]
        else:
            continue
        for row in sections:
            if row.tag == "tr":
                rows.append([cell for cell in row if cell.tag in ("td", "th")])
    return rows
