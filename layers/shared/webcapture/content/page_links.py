"""The links of an HTML page read over HTTP, without a browser (the start page of a map).

`<a href>` and `<area href>` as docs/api.md#links lists them, made absolute against the page's URL or its
`<base href>`, each with its text (whitespace collapsed; else `aria-label` or `title`). Links a script
would add are not seen: map reads the HTML as served, which keeps it fast and browser-free
(docs/crawl-and-map.md); the links endpoint and the crawl see the rendered page.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin

from webcapture.content.link_resolution import resolver_for

MAX_TEXT_CHARS = 200


@dataclass
class PageLinks:
    title: str = ""
    links: list[tuple[str, str]] = field(default_factory=list)  # (absolute URL, text) in document order


class _LinkParser(HTMLParser):
    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.found = PageLinks()
        self._open: list[tuple[str, list[str], str]] = []  # (href, text pieces, fallback text) of <a>
        self._in_title = False
        self._title: list[str] = []
        self._seen_base = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "base" and not self._seen_base and values.get("href"):
            self._seen_base = True
            with suppress(ValueError):  # an href no URL parser reads: the page's own URL stays the base
                self.base = urljoin(self.base, values["href"].strip())
        elif tag == "title":
            self._in_title = True
        elif tag in ("a", "area") and "href" in values:
            fallback = values.get("aria-label") or values.get("title") or ""
            if tag == "area":
                self._add(values["href"], fallback)
            else:
                self._open.append((values["href"], [], fallback))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "a" and self._open:
            href, pieces, fallback = self._open.pop()
            self._add(href, " ".join("".join(pieces).split()) or fallback)

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self._title.append(data)
        for _, pieces, _ in self._open:
            pieces.append(data)

    def _add(self, href: str, text: str) -> None:
        href = href.strip()
        if not href or href.startswith("#"):
            return
        resolved = resolver_for(self.base).resolve(href)
        if resolved is None:  # "http://[::1" and the like
            return
        self.found.links.append((resolved[0], " ".join(text.split())[:MAX_TEXT_CHARS]))

    def result(self) -> PageLinks:
        for href, pieces, fallback in self._open:  # unclosed <a> at the end of the document
            self._add(href, " ".join("".join(pieces).split()) or fallback)
        self.found.title = " ".join("".join(self._title).split())[:MAX_TEXT_CHARS]
        return self.found


def page_links(html: str, page_url: str) -> PageLinks:
    parser = _LinkParser(page_url)
    parser.feed(html)
    parser.close()
    return parser.result()
