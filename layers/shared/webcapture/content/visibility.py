"""What the HTML itself hides from a reader, as rules on a tag's name and attributes, whatever the parser.

The browser removes what stylesheets hide (computed style, browser/page_load.py) before the HTML gets here;
these rules catch what the markup says on its own (`hidden`, `aria-hidden`, inline styles), so a stored or
script-free page is pruned the same way. Text nobody can see is the classic place to smuggle instructions
to a model: nothing these rules match may reach it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

# Never content: code, styling, embedded documents and form plumbing.
NON_CONTENT_TAGS = frozenset({
    "script", "style", "noscript", "template", "svg", "canvas", "iframe", "frame", "frameset",
    "object", "embed", "link", "meta", "base", "head", "select", "datalist",
})  # fmt: skip

# Attributes that can hide an element; most elements carry none of them, so most need no closer look.
TELLING_ATTRS = frozenset({"hidden", "aria-hidden", "style", "type"})

_ZERO = re.compile(r"^[+-]?0*\.?0*(px|em|rem|pt|%|vw|vh)?$")


def hides(name: str, attrs: Mapping[str, str]) -> bool:
    """Whether an element `name` with these attributes is hidden from a sighted reader."""
    if "hidden" in attrs:
        return True
    if attrs.get("aria-hidden", "").strip().lower() == "true":
        return True
    if name == "input" and attrs.get("type", "").strip().lower() == "hidden":
        return True
    if name == "dialog" and "open" not in attrs:
        return True
    style = attrs.get("style", "")
    return bool(style) and style_hides(style)


def style_hides(style: str) -> bool:
    """Whether an inline `style` attribute makes its element invisible."""
    for declaration in style.split(";"):
        prop, _, value = declaration.partition(":")
        prop = prop.strip().lower()
        value = value.lower().replace("!important", "").strip()
        if (
            (prop == "display" and value == "none")
            or (prop == "visibility" and value in ("hidden", "collapse"))
            or (prop == "content-visibility" and value == "hidden")
            or (prop in ("opacity", "font-size") and value and _ZERO.match(value))
        ):
            return True
    return False
