"""docs/openapi.json is exactly the document the code generates (what GET /v1/openapi.json serves)."""

from __future__ import annotations

import json

from scripts.write_openapi import DOCUMENT, render
from webcapture.openapi.document import openapi_document


def test_the_committed_document_is_what_the_code_generates() -> None:
    # On failure: `make openapi` (python scripts/write_openapi.py) and commit docs/openapi.json.
    assert DOCUMENT.read_text(encoding="utf-8") == render()


def test_the_committed_document_describes_every_route_the_code_serves() -> None:
    committed = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    served = openapi_document()
    assert committed["openapi"] == served["openapi"] == "3.1.0"
    assert {(path, method) for path, item in committed["paths"].items() for method in item} == {
        (path, method) for path, item in served["paths"].items() for method in item}
