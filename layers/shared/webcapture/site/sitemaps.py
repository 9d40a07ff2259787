"""Reading one sitemap document (sitemaps.org 0.9): a `<urlset>` of page URLs or a `<sitemapindex>` of more
sitemaps, in pieces, with bounded memory.

The XML parser is lxml's (libxml2, maintained) with entity substitution, DTD loading and network access
off: an entity reference stays a reference and is never expanded, so a billion-laughs document costs
nothing; a document that declares entities at all is refused (no sitemap needs one). Elements are freed
as soon as their `<loc>` is read, so a 50 MB sitemap holds a few kilobytes of tree at any moment. The
byte limits are the caller's (bounded_body); this module only stops at `max_urls`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from lxml import etree

_NS: Final = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# Tags of both the official namespace and none (sitemaps written without it are common).
_URLSET: Final = (f"{_NS}urlset", "urlset")
_INDEX: Final = (f"{_NS}sitemapindex", "sitemapindex")


class SitemapRefused(Exception):
    """The document is not one this reader accepts (entity declarations, not XML)."""


@dataclass
class SitemapDocument:
    is_index: bool = False
    locations: list[str] = field(default_factory=list)  # page URLs (urlset) or sitemap URLs (index)
    stopped: bool = False  # max_urls reached before the end


def _declares_entities(root: Any) -> bool:
    dtd = root.getroottree().docinfo.internalDTD
    return dtd is not None and any(True for _ in dtd.iterentities())


# The `<loc>` texts of an element's finished entries (all but the last child, which may still be open),
# and of all of them once the document is closed; strings only, found in C.
_FINISHED_LOCS = etree.XPath("*[position() < last()]/*[local-name() = 'loc']/text()", smart_strings=False)
_ALL_LOCS = etree.XPath("*/*[local-name() = 'loc']/text()", smart_strings=False)


def _take(document: SitemapDocument, texts: list[str], max_urls: int,
          keep: Callable[[str], bool] | None) -> bool:
    """Add these `<loc>` texts; True when max_urls is reached."""
    for raw in texts:
        text = raw.strip()
        if text and (document.is_index or keep is None or keep(text)):
            document.locations.append(text)
            if len(document.locations) >= max_urls:
                document.stopped = True
                return True
    return False


def read_sitemap(pieces: Iterable[bytes], max_urls: int,
                 keep: Callable[[str], bool] | None = None) -> SitemapDocument:
    """The `<loc>`s of a sitemap document fed in pieces; stops after `max_urls` kept ones. `keep` filters
    page URLs as they are read (a sitemap index's entries are always kept)."""
    # Only the root's start is reported; the entries are read from the tree, piece by piece, and freed.
    parser = etree.XMLPullParser(events=("start",), tag=(*_URLSET, *_INDEX), resolve_entities=False,
                                 no_network=True, load_dtd=False, huge_tree=False, remove_comments=True,
                                 remove_pis=True)
    document = SitemapDocument()
    root: Any = None
    try:
        for piece in pieces:
            parser.feed(piece)
            if root is None:
                for _event, element in parser.read_events():
                    if element.getparent() is None and root is None:
                        root = element
                        # The root has started: any DTD came before it.
                        if _declares_entities(root):
                            raise SitemapRefused("the document declares XML entities")
                        document.is_index = root.tag in _INDEX
                if root is None:
                    continue
            if len(root) > 1:
                if _take(document, _FINISHED_LOCS(root), max_urls, keep):
                    return document
                del root[: len(root) - 1]  # what was read is freed: the tree stays one entry deep
        parser.close()
        if root is not None:
            _take(document, _ALL_LOCS(root), max_urls, keep)
    except etree.XMLSyntaxError as error:
        if root is None:
            raise SitemapRefused(f"not well-formed XML ({error.msg})") from None
        document.stopped = True  # what was read before the break stands
    return document
