"""A page's links as the links answer carries them, whichever engine read the page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class Link(NamedTuple):
    # One link whole, for callers outside the answer's hot path (which works on Links' columns).
    url: str
    text: str
    internal: bool


@dataclass(frozen=True)
class Links:
    """The page's links as three columns, in document order, deduplicated (externals dropped when not
    requested): a page can hold 100,000 links, and one object per link cost the answer 0.1 s to build."""

    urls: list[str]
    texts: list[str]
    internal: list[int]  # 1 when the link is internal, 0 when external
    final_url: str
    status_code: int | None
    requested_url: str
    warnings: tuple[str, ...] = ()

    @property
    def links(self) -> tuple[Link, ...]:
        """One Link each, for callers that want them whole (not the answer's hot path)."""
        return tuple(map(Link, self.urls, self.texts, map(bool, self.internal)))

    @property
    def total_links(self) -> int:
        return len(self.urls)

    @property
    def internal_links(self) -> int:
        return sum(self.internal)

    @property
    def external_links(self) -> int:
        return self.total_links - self.internal_links
