"""The links core (docs/api.md#links).

All of the work happens in one page.evaluate that returns one JSON string: a round trip per element, or
Playwright's value-by-value serialisation of a large array, would not meet 100,000 links in 2 s.
"""

from __future__ import annotations

import json

from webcapture.browser.page_scripts import EXTRACT_LINKS_JS
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.gc_pause import collection_paused
from webcapture.link_columns import Link as Link
from webcapture.link_columns import Links
from webcapture.models.requests import LinksRequest
from webcapture.unicode_text import well_formed


def collect_links(request: LinksRequest) -> Links:
    def extract(loaded: LoadedPage) -> Links:
        extracted = loaded.page.evaluate(EXTRACT_LINKS_JS)
        with collection_paused():
            urls, texts, internal = parse_links(extracted)
            if not request.includeExternal:
                kept = [index for index, flag in enumerate(internal) if flag]
                urls, texts, internal = [urls[i] for i in kept], [texts[i] for i in kept], [1] * len(kept)
        return Links(urls, texts, internal, loaded.page.url, loaded.status_code, request.url,
                     tuple(loaded.warnings))

    return with_loaded_page(request.url, request.waitTime, extract, control=request)


def parse_links(extracted: str) -> tuple[list[str], list[str], list[int]]:
    """The urls, texts and internal flags of EXTRACT_LINKS_JS's answer, every string well-formed."""
    flat = json.loads(extracted)
    if len(flat) % 3:
        raise ValueError("the links extraction answered a list that is not url, text, internal triples")
    # A page's strings may hold half a surrogate pair, which UTF-8 (the answer, its size) cannot.
    # JSON.stringify writes a lone half as a \udxxx escape and a whole pair as the character itself: an
    # answer without that escape holds none, and the 200,000 strings of a large page need no look each.
    if "\\ud" in extracted or "\\uD" in extracted:
        flat = [well_formed(value) if isinstance(value, str) else value for value in flat]
    return flat[0::3], flat[1::3], flat[2::3]
