"""Reading one sitemap document (sitemaps.org 0.9): a `<urlset>` of page URLs or a `<sitemapindex>` of more
sitemaps, in pieces, with bounded memory.

The XML parser is lxml's (libxml2, maintained) with entity substitution, DTD loading and network access
off: an entity reference stays a reference and is never expanded, so a billion-laughs document costs
nothing; a document that declares entities at all is refused (no sitemap needs one). Elements are freed
as soon as their `<loc>` is read, so a 50 MB sitemap holds a few kilobytes of tree at any moment; inside
the entry still open, every finished element is freed too, at any depth (but the entry's first `<loc>`),
so one `<url>` of four million children holds no more than one does. The byte limits are the caller's
(bounded_body); this module stops at `max_urls`, and at MAX_ELEMENTS elements (`too_many_elements`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from lxml import etree

_NS: Final = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# Tags of both the official namespace and none (sitemaps written without it are common).
_URLSET: Final = (f"{_NS}urlset", "urlset")
_INDEX: Final = (f"{_NS}sitemapindex", "sitemapindex")
# sitemaps.org allows 50,000 entries; with `<lastmod>`, `<changefreq>`, `<priority>` and a few image or news
# children each, a real one stays well under this. Past it the document is read no further: parsing
# millions of empty elements (a few bytes each, so within the byte limit) is work for nothing.
MAX_ELEMENTS: Final = 1_000_000
# An entry has one `<loc>`; an entry still open keeps no more than this many.
MAX_ENTRY_LOCS: Final = 64


class SitemapRefused(Exception):
    """The document is not one this reader accepts (entity declarations, not XML)."""


@dataclass
class SitemapDocument:
    is_index: bool = False
    locations: list[str] = field(default_factory=list)  # page URLs (urlset) or sitemap URLs (index)
    stopped: bool = False  # max_urls reached before the end
    too_many_elements: bool = False  # read no further past MAX_ELEMENTS elements
    # Why the XML parser stopped after the root had started (what came before stands).
    broken: str | None = None


def _declares_entities(root: Any) -> bool:
    dtd = root.getroottree().docinfo.internalDTD
    return dtd is not None and any(True for _ in dtd.iterentities())


# The `<loc>` texts of an element's entries, and of one entry; strings only, found in C. `<loc>` is
# matched by its local name, in whatever namespace.
_COUNT_ELEMENTS = etree.XPath("count(.//*)")
_ALL_LOCS = etree.XPath("*/*[local-name() = 'loc']/text()", smart_strings=False)
_ENTRY_LOCS = etree.XPath("*[local-name() = 'loc']/text()", smart_strings=False)
# The same, as a union of name tests over the namespaces the document declares (and none, and xml's):
# every element's namespace is one of those, so the union finds what the local-name test finds, in
# document order, at a third of its cost. Past this many namespaces the local-name test is used.
_XML_NAMESPACE: Final = "http://www.w3.org/XML/1998/namespace"
_MAX_NAMESPACES: Final = 8


@lru_cache(maxsize=64)
def _loc_paths(namespaces: frozenset[str]) -> tuple[etree.XPath, etree.XPath]:
    """(all entries', one entry's) `<loc>` texts for a document declaring `namespaces`."""
    if len(namespaces) > _MAX_NAMESPACES:
        return _ALL_LOCS, _ENTRY_LOCS
    prefixes = {f"n{index}": uri for index, uri in enumerate(sorted(namespaces | {_XML_NAMESPACE}))}
    names = ["loc", *(f"{prefix}:loc" for prefix in prefixes)]

    def union(step: str) -> etree.XPath:
        return etree.XPath(" | ".join(f"{step}{name}/text()" for name in names), namespaces=prefixes,
                           smart_strings=False)

    return union("*/"), union("")


def _why_broken(message: str) -> str:
    """libxml2's reason for stopping, in our words (its own name parser options and line numbers)."""
    lowered = message.lower()
    if "depth" in lowered:
        return "elements nested more than 256 deep"
    if "text node too long" in lowered or "huge" in lowered:
        return "a text longer than 10 MB"
    return "not well-formed XML"


Select = Callable[[list[str]], list[str]]


def _free_open_entry(entry: Any) -> None:
    """Free what is finished inside the entry still being read: everything before the last child, at each
    level down the open path, but the entry's own `<loc>`s (read when the entry ends; the first
    MAX_ENTRY_LOCS of them)."""
    finished = len(entry) - 1
    if finished > 0:
        # Found in C ({*} is any namespace or none); only the locs get a Python object.
        locs = [index for child in itertools.islice(entry.iterchildren("{*}loc"), MAX_ENTRY_LOCS)
                if (index := entry.index(child)) < finished]
        end = finished
        for index in reversed(locs):  # the runs between kept locs, last first so indexes stay true
            del entry[index + 1: end]
            end = index
        del entry[:end]
    node = entry[-1] if len(entry) else None
    while node is not None and len(node):
        del node[: len(node) - 1]
        node = node[-1]


def _take(document: SitemapDocument, texts: list[str], max_urls: int, select: Select | None) -> bool:
    """Add these `<loc>` texts (a sitemap's page URLs as `select` answers); True when max_urls is reached."""
    found = [text for raw in texts if (text := raw.strip())]
    chosen = select(found) if select is not None and not document.is_index else found
    room = max_urls - len(document.locations)
    document.locations.extend(chosen[:room])
    if len(chosen) >= room:
        document.stopped = True
        return True
    return False


def read_sitemap(pieces: Iterable[bytes], max_urls: int, *, select: Select | None = None) -> SitemapDocument:
    """The `<loc>`s of a sitemap document fed in pieces; stops after `max_urls` kept ones. `select` filters
    page URLs a batch at a time (the URLs of what each piece finished, in order: it answers the ones to
    keep, in order, and may see a few past `max_urls`); a sitemap index's entries are always kept."""
    # Only the root's start is reported, and each namespace declaration; the entries are read from the
    # tree, piece by piece, and freed.
    parser = etree.XMLPullParser(events=("start", "start-ns"), tag=(*_URLSET, *_INDEX),
                                 resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                                 remove_comments=True, remove_pis=True)
    document = SitemapDocument()
    root: Any = None
    namespaces: set[str] = set()
    counted = 0  # elements read so far; `held` of them are still in the tree
    held = 0
    try:
        for piece in pieces:
            parser.feed(piece)
            for event, value in parser.read_events():
                if event == "start-ns":
                    # xmlns="" is no namespace; past the limit, how many more makes no difference.
                    if value[1] and len(namespaces) <= _MAX_NAMESPACES:
                        namespaces.add(value[1])
                elif value.getparent() is None and root is None:
                    root = value
                    # The root has started: any DTD came before it.
                    if _declares_entities(root):
                        raise SitemapRefused("the document declares XML entities")
                    document.is_index = root.tag in _INDEX
            if root is None:
                continue
            counted += int(_COUNT_ELEMENTS(root)) - held
            if counted > MAX_ELEMENTS:
                document.stopped = document.too_many_elements = True
                return document
            if len(root) > 1:
                # The entries before the last are finished; the last may still be open, so its texts
                # (the last ones, in document order) wait for the next piece.
                every, one = _loc_paths(frozenset(namespaces))
                texts = every(root)
                unfinished = len(one(root[-1]))
                if _take(document, texts[: len(texts) - unfinished], max_urls, select):
                    return document
                del root[: len(root) - 1]  # what was read is freed: the tree stays one entry deep
            if len(root):
                _free_open_entry(root[-1])
            held = int(_COUNT_ELEMENTS(root))
        parser.close()
        if root is not None:
            every, _ = _loc_paths(frozenset(namespaces))
            _take(document, every(root), max_urls, select)
    except etree.XMLSyntaxError as error:
        if root is None:
            raise SitemapRefused(f"not well-formed XML ({error.msg})") from None
        document.stopped = True  # what was read before the break stands
        document.broken = _why_broken(error.msg or "")
    return document
