"""Playwright's device descriptors (`device` in docs/api.md#page-control), read from the installed Playwright
package without starting Playwright: validation must know the names before any browser work.

Playwright 1.65 no longer ships deviceDescriptorsSource.json as a file; the same JSON is bundled into
driver/package/lib/coreBundle.js as a JavaScript object literal (unquoted keys). Older packages have the
file. Either way the descriptors come from the Playwright the browser runs, so the names always match it.
Read once per process (about 10 ms for the 3.6 MB bundle).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

_BUNDLE_START = "deviceDescriptorsSource_default = {"
_JSON_NAMES = ("lib/server/deviceDescriptorsSource.json", "lib/server/deviceDescriptors.json")


@functools.cache
def device_descriptors() -> dict[str, dict[str, Any]]:
    """name -> {userAgent, viewport, screen?, deviceScaleFactor, isMobile, hasTouch, defaultBrowserType}."""
    package = _playwright_package()
    for name in _JSON_NAMES:
        if (path := package / name).is_file():
            loaded: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
            return loaded
    bundle = (package / "lib" / "coreBundle.js").read_text(encoding="utf-8")
    start = bundle.index(_BUNDLE_START) + len(_BUNDLE_START) - 1
    parsed: dict[str, dict[str, Any]] = json.loads(_object_literal_as_json(bundle, start))
    return parsed


def device_names() -> tuple[str, ...]:
    return tuple(device_descriptors())


def _playwright_package() -> Path:
    import playwright  # the BrowserLayer's package; only browser functions validate device names

    return Path(playwright.__file__).parent / "driver" / "package"


def _object_literal_as_json(source: str, start: int) -> str:
    """The JavaScript object literal starting at source[start] ('{'), as JSON: identifier keys quoted,
    strings (double-quoted, as esbuild writes JSON data) copied as they are."""
    out: list[str] = []
    depth, i = 0, start
    while True:
        ch = source[i]
        if ch == '"':
            end = i + 1
            while source[end] != '"':
                end += 2 if source[end] == "\\" else 1
            out.append(source[i : end + 1])
            i = end + 1
            continue
        if ch.isalpha() or ch == "_":
            end = i
            while source[end].isalnum() or source[end] == "_":
                end += 1
            word = source[i:end]
            after = end
            while source[after] in " \t\r\n":
                after += 1
            out.append(f'"{word}"' if source[after] == ":" else word)
            i = end
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        out.append(ch)
        i += 1
        if depth == 0:
            return "".join(out)
