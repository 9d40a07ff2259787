"""Which URLs belong to a map or a crawl: the start URL's host (a leading `www.` ignored, as docs/api.md#links
counts internal links), its subdomains when asked, any host when external links are allowed, then the path
globs and the depth.

Scheme and port are not compared: `http://` and `https://` of one host, or another port of it, are the
same site to a reader, and every fetch still passes the egress guard on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from webcapture.path_globs import PathGlobs
from webcapture.site.canonical_urls import host_of, path_of


def site_host(host: str) -> str:
    """The host a site is known by: lower case, no leading `www.`, no trailing dot."""
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True)
class Scope:
    host: str  # site_host of the start URL
    include_subdomains: bool = False
    allow_external: bool = False
    paths: PathGlobs = field(default_factory=PathGlobs)
    max_depth: int | None = None

    @classmethod
    def of(cls, start_canonical: str, **options: object) -> Scope:
        return cls(site_host(host_of(start_canonical)), **options)  # type: ignore[arg-type]

    def host_allowed(self, host: str) -> bool:
        return self.allow_external or _same_site(self.host, self.include_subdomains, host)

    def allows(self, canonical: str, depth: int = 0) -> bool:
        """Whether a canonical URL found at `depth` link hops from the start is in scope."""
        if self.max_depth is not None and depth > self.max_depth:
            return False
        if not self.allow_external and not _same_site(self.host, self.include_subdomains, host_of(canonical)):
            return False
        return not (self.paths.include or self.paths.exclude) or self.paths.allows(path_of(canonical))


@lru_cache(maxsize=1024)
def _same_site(site: str, include_subdomains: bool, host: str) -> bool:
    # Cached: a sitemap's thousands of URLs name a handful of hosts.
    host = site_host(host)
    return host == site or (include_subdomains and host.endswith("." + site))
