"""Helpers for the page-control browser tests: requests by dict, pixels of a PNG, the fixture page's JSON."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.support.png_pixels import Pixels
from webcapture.browser import PageSnapshot, Screenshot, load_page, take_screenshot
from webcapture.models.requests import AiExtractRequest, ScreenshotRequest


def shoot(url: str, **body: Any) -> Screenshot:
    return take_screenshot(ScreenshotRequest.model_validate({"url": url, **body}))


def snapshot(url: str, **control: Any) -> PageSnapshot:
    # AiExtractRequest is a PageControl like the others; its prompt is only there to make it valid.
    request = AiExtractRequest.model_validate({"url": url, "prompt": "p", **control})
    return load_page(url, request.waitTime, request)


def pixels(shot: Screenshot) -> Pixels:
    return Pixels(shot.image)


def pre_json(page: PageSnapshot, element_id: str) -> dict[str, Any]:
    """The JSON a fixture page wrote into <pre id=element_id>."""
    match = re.search(rf"<pre id=\"{element_id}\">(.*?)</pre>", page.html, re.S)
    assert match is not None, page.html
    text = match.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
    loaded: dict[str, Any] = json.loads(text)
    return loaded
