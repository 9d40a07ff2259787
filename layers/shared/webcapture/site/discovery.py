"""What a crawled page adds to the crawl (docs/crawl-and-map.md#crawl-and-map): its links, canonicalised, each
once, sorted into the pages to claim next and the ones left out, with the reason.

Pure decisions, no I/O: the worker claims the kept ones (site.crawl_store.claim_url, which also keeps each
canonical URL to one crawl of it across workers) and loads each through the egress guard, where a link to a
non-public address is refused and recorded as URL_NOT_ALLOWED.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from webcapture.site.canonical_urls import canonical_url
from webcapture.site.scope import Scope


class Skip(StrEnum):
    NOT_A_PAGE = "not-a-page"  # mailto:, javascript:, a host no browser reads, too long
    OUT_OF_SCOPE = "out-of-scope"  # another host, an excluded path, or not an included one
    TOO_DEEP = "too-deep"  # past maxDepth
    ROBOTS = "robots"  # disallowed by robots.txt for our user agent


@dataclass
class Discovery:
    follow: list[tuple[str, int]] = field(default_factory=list)  # (canonical URL, its depth)
    skipped: list[tuple[str, Skip]] = field(default_factory=list)


def discover(links: Iterable[str], page_depth: int, scope: Scope, *, drop_query: bool,
             robots_allow: Callable[[str], bool] | None = None) -> Discovery:
    """Sort a page's links (absolute URLs, in document order). `robots_allow` answers for a canonical
    URL (None: robots.txt is not respected)."""
    found = Discovery()
    seen: set[str] = set()
    depth = page_depth + 1
    for link in links:
        canonical = canonical_url(link, drop_query=drop_query)
        if canonical is None:
            found.skipped.append((link, Skip.NOT_A_PAGE))
            continue
        if canonical in seen:
            continue
        seen.add(canonical)
        if scope.max_depth is not None and depth > scope.max_depth:
            found.skipped.append((canonical, Skip.TOO_DEEP))
        elif not scope.allows(canonical):
            found.skipped.append((canonical, Skip.OUT_OF_SCOPE))
        elif robots_allow is not None and not robots_allow(canonical):
            found.skipped.append((canonical, Skip.ROBOTS))
        else:
            found.follow.append((canonical, depth))
    return found


def redirected_out_of_scope(final_url: str, scope: Scope, *, drop_query: bool) -> bool:
    """Whether a page that redirected ended outside the crawl: recorded as skipped, its links not followed."""
    canonical = canonical_url(final_url, drop_query=drop_query)
    return canonical is None or not scope.allows(canonical)
