"""The API's answers as MCP content: what the model reads or sees first, then the facts about it.

Images are image content (the model sees them); a PDF is a resource link to the stored file (a model cannot
read PDF bytes, a user can open the link); text comes as text. Each answer ends with a small JSON block of
metadata (final URL, status code, sizes, warnings) so the model can tell a redirect or a cut answer.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_types import ContentBlock, ImageContent, ResourceLink, TextContent

_IMAGE_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
# The largest side models take as image input (Anthropic's API refuses larger images, and a refused image
# can fail the whole turn); a full-page capture of a long page is often taller.
MAX_MODEL_IMAGE_SIDE_PX = 8000


def _facts(data: dict[str, Any], *skip: str) -> TextContent:
    shown = {name: value for name, value in data.items() if name not in skip and value is not None}
    return TextContent(text=json.dumps(shown, ensure_ascii=False, indent=1))


def _stored(data: dict[str, Any], mime_type: str, extension: str, description: str) -> ResourceLink:
    metadata = data.get("metadata") or {}
    return ResourceLink(uri=data["permanentUrl"], name=f"{data.get('fileId', 'file')}.{extension}",
                        title=metadata.get("title") or metadata.get("url"), description=description,
                        mime_type=mime_type, size=metadata.get("size"))


def screenshot(data: dict[str, Any]) -> list[ContentBlock]:
    """The image inline; too large for the API to answer inline, or for a model to take: a link to the
    stored image, and why."""
    metadata = data.get("metadata") or {}
    mime_type = _IMAGE_TYPES.get(str(metadata.get("format")), "image/png")
    width, height = int(metadata.get("width") or 0), int(metadata.get("height") or 0)
    facts = _facts(data, "image")
    if data.get("image") and max(width, height) <= MAX_MODEL_IMAGE_SIDE_PX:
        return [ImageContent(data=data["image"], mime_type=mime_type), facts]
    link = _stored(data, mime_type, str(metadata.get("format", "png")), "The screenshot, stored")
    if data.get("image"):
        note = TextContent(text=(
            f"The screenshot is {width}x{height} px, more than models take as an image "
            f"({MAX_MODEL_IMAGE_SIDE_PX} px a side), so it is given as a link. To see the page, call "
            "screenshot again with screenshotOptions.fullPage false, or a screenshotOptions.clip."))
        return [link, note, facts]
    return [link, facts]


def pdf(data: dict[str, Any]) -> list[ContentBlock]:
    pages = (data.get("metadata") or {}).get("pages")
    return [_stored(data, "application/pdf", "pdf", f"The page as a PDF ({pages} pages), stored"),
            _facts(data, "pdf")]


def markdown(data: dict[str, Any]) -> list[ContentBlock]:
    return [TextContent(text=data.get("markdown", "")), _facts(data, "markdown")]


def content(data: dict[str, Any]) -> list[ContentBlock]:
    return [TextContent(text=data.get("html", "")), _facts(data, "html")]


def extract(data: dict[str, Any]) -> list[ContentBlock]:
    if data.get("extracted") is not None:
        answer = json.dumps(data["extracted"], ensure_ascii=False, indent=1)
    else:
        answer = str(data.get("text", ""))
    return [TextContent(text=answer), _facts(data, "extracted", "text")]


def as_json(data: dict[str, Any]) -> list[ContentBlock]:
    """The whole data object as JSON (links, and answers that are lists of records)."""
    return [TextContent(text=json.dumps(data, ensure_ascii=False, indent=1))]
