"""Text from a page made safe to write as UTF-8 (every answer, every log line, every stored record)."""

from __future__ import annotations


def well_formed(text: str) -> str:
    """`text` with any lone surrogate replaced by U+FFFD.

    A page's strings are JavaScript strings, which may hold half a surrogate pair; UTF-8 cannot, so one such
    character would make the whole answer unwritable.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 joins the well-formed pairs back into one character and replaces only the lone halves.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
