"""`make openapi`: docs/openapi.json, the OpenAPI document GET /v1/openapi.json serves, committed so that the
API's reference can be read (and a client generated) without a running deployment.

The document is built from the very models the functions validate and answer with
(webcapture.openapi.document); tests/unit/test_openapi_document.py fails when the committed file differs
from what the code generates, so run this after changing a request or answer model.

    python scripts/write_openapi.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "layers" / "shared"), str(REPO)]

from scripts.generated_file import write_or_check  # noqa: E402
from webcapture.openapi.document import openapi_document  # noqa: E402

DOCUMENT = REPO / "docs" / "openapi.json"


def render() -> str:
    """The document as committed: indented, keys in the code's order, UTF-8, one final newline."""
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    return write_or_check(DOCUMENT, render, "openapi", (__doc__ or "").splitlines()[0], argv)


if __name__ == "__main__":
    sys.exit(main())
