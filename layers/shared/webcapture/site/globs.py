"""The path patterns of a crawl (`includePaths`, `excludePaths`): globs, never regular expressions.

`*` is any run of characters but `/`, `**` any run including `/`, `?` one character but `/`; every
other character stands for itself. So a regular expression given here is read as a glob whose dots,
brackets, carets and dollars are literal: `^/blog/.*$` matches only a path spelled exactly that way
(the docs say so), and no pattern can cost more than linear time, as a regular expression could.
A pattern matches the whole path (no query); one without a leading `/` or `*` gets a `/` in front.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache


@lru_cache(maxsize=1024)
def glob_regex(pattern: str) -> re.Pattern[str]:
    if not pattern.startswith(("/", "*")):
        pattern = "/" + pattern
    parts: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**", index):
            parts.append(".*")
            index += 2
            continue
        parts.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
        index += 1
    return re.compile("".join(parts), re.DOTALL)


def matches(pattern: str, path: str) -> bool:
    return glob_regex(pattern).fullmatch(path) is not None


@dataclass(frozen=True)
class PathGlobs:
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    @classmethod
    def of(cls, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> PathGlobs:
        return cls(tuple(include), tuple(exclude))

    def allows(self, path: str) -> bool:
        """In when no include pattern is given or one matches, and no exclude pattern matches."""
        if self.include and not any(matches(pattern, path) for pattern in self.include):
            return False
        return not any(matches(pattern, path) for pattern in self.exclude)
