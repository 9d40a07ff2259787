"""The three answer forms of an endpoint that makes a file: the screenshot (CONTRACT 7) and the PDF (15).

- `base64: true`: the file is stored and answered as JSON, with the bytes inline when they fit;
- an Accept header that ranks application/json above the file's type: stored, answered as JSON;
- otherwise the bytes themselves, or, when they would not fit in a Lambda answer, a 303 to the stored file.
The caller decides what "stored" means (`store` returns the JSON data: metadata, permanentUrl, fileId);
this module only decides which form, so both endpoints answer alike.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from webcapture.answer_warnings import with_warnings
from webcapture.response_limits import fits_inline_base64
from webcapture.stored_files import StoredFile


@dataclass(frozen=True)
class MadeFile:
    body: bytes
    content_type: str
    inline_key: str  # the JSON field that carries the base64 bytes: "image", "pdf"
    warnings: Sequence[str] = ()
    target_status: int | None = None  # the bytes form's X-Webcapture-Target-Status (CONTRACT 20)


@dataclass(frozen=True)
class FileAnswer:
    form: Literal["binary", "json", "redirect"]
    body: bytes = b""
    content_type: str = ""
    data: dict[str, Any] | None = None
    location: str = ""
    warnings: tuple[str, ...] = ()  # the binary form's X-Webcapture-Warning (JSON forms: data.warning)
    target_status: int | None = None  # the binary form's X-Webcapture-Target-Status (JSON: metadata)


def answer_with_file(made: MadeFile, *, wants_base64: bool, accept: str | None, binary_type: str,
                     store: Callable[[], dict[str, Any]]) -> FileAnswer:
    """`binary_type` is what an Accept header is compared with: a media type, or a family ("image/")."""
    if wants_base64:
        data = store()
        if fits_inline_base64(len(made.body)):
            data = {made.inline_key: base64.b64encode(made.body).decode(), **data}
        else:
            data = with_warnings(data, [_too_large(made.inline_key)])
        return FileAnswer("json", data=data)
    if prefers_json(accept, binary_type):
        return FileAnswer("json", data=store())
    if fits_inline_base64(len(made.body)):
        return FileAnswer("binary", body=made.body, content_type=made.content_type,
                          warnings=tuple(made.warnings), target_status=made.target_status)
    data = store()
    return FileAnswer("redirect", data=data, location=data["permanentUrl"])


def _too_large(inline_key: str) -> str:
    what = "PDF" if inline_key == "pdf" else inline_key
    return f"The {what} is too large to return inline; fetch it from permanentUrl."


def prefers_json(accept: str | None, binary_type: str = "image/") -> bool:
    """Whether the Accept header ranks application/json above the binary type (ties go to the binary).

    `binary_type` is a media type, or a prefix ending in "/" for a whole family ("image/").
    """
    json_q, image_q = 0.0, 0.0
    for part in (accept or "").split(","):
        media, *params = (p.strip() for p in part.split(";"))
        quality = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        media = media.lower()
        if media == "application/json":
            json_q = max(json_q, quality)
        elif media == "*/*" or media == f"{binary_type.split('/')[0]}/*" or (
            media.startswith(binary_type) if binary_type.endswith("/") else media == binary_type
        ):
            image_q = max(image_q, quality)
    return json_q > 0 and json_q > image_q


def stored_data(stored: StoredFile, metadata: dict[str, Any], warnings: Sequence[str]) -> dict[str, Any]:
    """The JSON data of a stored file's answer: its metadata, permanent URL and id, and any warnings."""
    return with_warnings({"metadata": metadata, "permanentUrl": stored.public_url, "fileId": stored.file_id},
                         warnings)
