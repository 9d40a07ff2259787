"""Text answers a model can hold: the text tools (markdown, content, links, extract) take `maxChars` (default
20,000, at most 100,000) and `offset`. A longer answer is cut at the last line boundary inside the window,
and a last line says where it was cut and how to read on (docs/mcp.md, output size).

Reading on reloads the page; the text tools ask for the cached answer of the same request (`maxAge`,
unless the model gave one), so the pages that follow cost nothing and cut the same text at the same offsets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_CHARS = 20_000
MAX_MAX_CHARS = 100_000
# How old a cached answer the text tools accept when the model sets no maxAge: the first call stores its
# answer for this long, and reading on with offset is served from it.
READ_ON_MAX_AGE_S = 900

SCHEMA_PROPERTIES: dict[str, Any] = {
    "maxChars": {"type": "integer", "minimum": 1, "maximum": MAX_MAX_CHARS, "default": DEFAULT_MAX_CHARS,
                 "description": "The most characters of text to answer (a longer answer is cut at a line "
                                "boundary and says which offset reads on)."},
    "offset": {"type": "integer", "minimum": 0, "default": 0,
               "description": "Where in the text to start: the offset a cut answer names, to read on."},
}


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class PagingError(ValueError):
    """maxChars or offset out of range: the message says what to send instead."""


@dataclass(frozen=True)
class Window:
    offset: int
    max_chars: int

    @classmethod
    def take(cls, arguments: dict[str, Any]) -> Window:
        """maxChars and offset, removed from the arguments (they are the tool's, not the API's)."""
        max_chars = arguments.pop("maxChars", DEFAULT_MAX_CHARS)
        offset = arguments.pop("offset", 0)
        if not _integer(max_chars) or not 1 <= max_chars <= MAX_MAX_CHARS:
            raise PagingError(f"maxChars must be an integer from 1 to {MAX_MAX_CHARS:,} (got {max_chars!r}).")
        if not _integer(offset) or offset < 0:
            raise PagingError(f"offset must be an integer of 0 or more (got {offset!r}).")
        return cls(offset, max_chars)

    def cut(self, text: str, tool: str) -> str:
        """The window of `text`, ending at a line boundary when it is not the end, with the line that says
        how to read on."""
        total = len(text)
        if self.offset >= total and total:
            return (f"[offset {self.offset:,} is past the end: the text is {total:,} characters. Call {tool} "
                    "with a smaller offset, or 0 for the start.]")
        end = self.offset + self.max_chars
        if end >= total:
            return text[self.offset:]
        newline = text.rfind("\n", self.offset, end)
        stop = newline + 1 if newline > self.offset else end  # a line longer than the window: cut inside it
        shown = text[self.offset:stop]
        shown = shown[:-1] if shown.endswith("\n") else shown  # the note's blank line stands for it
        return (shown +
                f"\n\n[cut: characters {self.offset:,} to {stop:,} of {total:,}. To read on, call {tool} "
                f"again with the same arguments and offset {stop}.]")
