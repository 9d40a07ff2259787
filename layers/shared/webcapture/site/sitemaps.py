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
_LOC: Final = (f"{_NS}loc", "loc")
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


def read_sitemap(pieces: Iterable[bytes], max_urls: int,
                 keep: Callable[[str], bool] | None = None) -> SitemapDocument:
    """The `<loc>`s of a sitemap document fed in pieces; stops after `max_urls` kept ones. `keep` filters
    page URLs as they are read (a sitemap index's entries are always kept)."""
    # Only `<loc>` ends are reported (lxml filters them in C: no Python object for any other element).
    parser = etree.XMLPullParser(events=("end",), tag=_LOC, resolve_entities=False, no_network=True,
                                 load_dtd=False, huge_tree=False, remove_comments=True, remove_pis=True)
    document = SitemapDocument()
    root: Any = None
    try:
        for piece in pieces:
            parser.feed(piece)
            last = None
            for _event, element in parser.read_events():
                last = element
                if root is None:
                    # The first <loc> read: the root has started, and any DTD came before it.
                    root = element.getroottree().getroot()
                    if _declares_entities(root):
                        raise SitemapRefused("the document declares XML entities")
                    document.is_index = root.tag in _INDEX
                text = (element.text or "").strip()
                if text and len(element) == 0 and (document.is_index or keep is None or keep(text)):
                    document.locations.append(text)
                    if len(document.locations) >= max_urls:
                        document.stopped = True
                        return document
            if last is not None:
                # Free the entries read so far (all but the one holding the last <loc>, which may still be
                # open): the tree stays a few entries deep whatever the document's size.
                entry = last.getparent()
                if entry is not None and entry.getparent() is root:
                    del root[: root.index(entry)]
        parser.close()
    except etree.XMLSyntaxError as error:
        if root is None:
            raise SitemapRefused(f"not well-formed XML ({error.msg})") from None
        document.stopped = True  # what was read before the break stands
    return document
