"""A cached answer as one S3 object: a line of JSON describing it, then the answer's bytes or data.

Bytes stay raw (a 5 MB screenshot is not inflated by base64 and parsed back); JSON answers keep their
`data` as it was answered. Anything that does not parse as an entry is refused (CorruptEntry).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from webcapture.answer_forms import FileAnswer

FORMAT_VERSION = 1
_FORMS = ("binary", "json", "redirect")


class CorruptEntry(ValueError):
    """The object is not an entry this code wrote (cut short, overwritten, another version)."""


@dataclass(frozen=True)
class Entry:
    answer: FileAnswer
    cached_at: str  # ISO 8601, as metadata.cachedAt answers it
    cached_at_ms: int
    file_id: str | None = None  # the stored file the answer points at
    file_expires_ms: int | None = None  # when that file's retention ends: the entry is useless after


def encode(entry: Entry) -> bytes:
    answer = entry.answer
    header = {
        "v": FORMAT_VERSION, "form": answer.form, "contentType": answer.content_type,
        "location": answer.location, "warnings": list(answer.warnings), "cachedAt": entry.cached_at,
        "cachedAtMs": entry.cached_at_ms, "fileId": entry.file_id, "fileExpiresMs": entry.file_expires_ms,
    }
    payload = answer.body if answer.form == "binary" else json.dumps(answer.data or {}).encode()
    return json.dumps(header).encode() + b"\n" + payload


def decode(raw: bytes) -> Entry:
    line, newline, payload = raw.partition(b"\n")
    try:
        if not newline:
            raise CorruptEntry("no header line")
        header = json.loads(line)
        if not isinstance(header, dict) or header.get("v") != FORMAT_VERSION or (
            header.get("form") not in _FORMS
        ):
            raise CorruptEntry("unknown header")
        form = header["form"]
        data: dict[str, Any] | None = None
        if form != "binary":
            data = json.loads(payload)
            if not isinstance(data, dict):
                raise CorruptEntry("data is not an object")
        answer = FileAnswer(
            form=form, body=payload if form == "binary" else b"", content_type=str(header["contentType"]),
            data=data, location=str(header["location"]), warnings=tuple(str(w) for w in header["warnings"]),
        )
        return Entry(answer=answer, cached_at=str(header["cachedAt"]), cached_at_ms=int(header["cachedAtMs"]),
                     file_id=_optional_str(header.get("fileId")),
                     file_expires_ms=_optional_int(header.get("fileExpiresMs")))
    except CorruptEntry:
        raise
    except (ValueError, KeyError, TypeError) as error:  # JSONDecodeError and UnicodeDecodeError included
        raise CorruptEntry(str(error)) from None


def _optional_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)
