"""robots.txt (RFC 9309) read with protego, the parser Scrapy maintains, for our user agent.

What a fetch of robots.txt means, as RFC 9309 section 2.3.1 says: an answer in 2xx is the rules; 4xx
(none there) allows everything; 5xx, or no answer at all, disallows everything until it can be read.
Only the first 500 KiB are read (the RFC's minimum; Google reads as much). `Sitemap:` lines are kept
whatever the status (none when there is no file).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from protego import Protego

from webcapture.egress.fetch import FetchFailed, FetchRefused, get
from webcapture.errors import NavigationTimeout

# The product token robots.txt groups are matched against, and the User-Agent our own requests send.
ROBOTS_TOKEN: Final = "webcapture"  # noqa: S105 - a product token, not a secret
USER_AGENT: Final = "Mozilla/5.0 (compatible; webcapture/1.0; +https://github.com/webcapture)"
MAX_ROBOTS_BYTES: Final = 500 * 1024
# A Crawl-delay above this is read as this: one page a minute would make a 100-page crawl take hours.
MAX_CRAWL_DELAY_S: Final = 30.0


@dataclass(frozen=True)
class RobotsRules:
    """A site's rules for our user agent."""

    rules: Protego | None = None  # None: everything allowed, or (disallow_all) nothing
    disallow_all: bool = False
    sitemaps: tuple[str, ...] = field(default=())
    note: str | None = None  # why the rules are what they are when the file could not be read

    def allowed(self, url: str) -> bool:
        if self.disallow_all:
            return False
        return self.rules is None or bool(self.rules.can_fetch(url, ROBOTS_TOKEN))

    @property
    def crawl_delay_s(self) -> float:
        """The group's Crawl-delay (0 when none), at most MAX_CRAWL_DELAY_S."""
        delay = None if self.rules is None else self.rules.crawl_delay(ROBOTS_TOKEN)
        return 0.0 if delay is None else min(max(float(delay), 0.0), MAX_CRAWL_DELAY_S)


def parse_robots(text: str) -> RobotsRules:
    rules = Protego.parse(text)
    return RobotsRules(rules=rules, sitemaps=tuple(dict.fromkeys(rules.sitemaps)))


def fetch_robots(origin: str, deadline: float) -> RobotsRules:
    """The rules of `origin` (scheme://host[:port]), fetched through the egress guard."""
    url = origin + "/robots.txt"
    try:
        with get(url, deadline=deadline, headers={"User-Agent": USER_AGENT}) as response:
            if 400 <= response.status < 500:
                return RobotsRules()
            if response.status >= 500:
                return RobotsRules(disallow_all=True, note=f"robots.txt answered {response.status}")
            if response.status >= 300:  # a redirect without Location, or more than we follow
                return RobotsRules()
            body, _ = response.read(MAX_ROBOTS_BYTES)
    except FetchRefused:
        return RobotsRules(disallow_all=True, note="robots.txt is refused by the egress policy")
    except (FetchFailed, NavigationTimeout) as error:
        return RobotsRules(disallow_all=True, note=f"robots.txt could not be read ({error})")
    return parse_robots(body.decode("utf-8", errors="replace"))
