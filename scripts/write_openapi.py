"""`make openapi`: docs/openapi.json, the OpenAPI document GET /v1/openapi.json serves, committed so that the
API's reference can be read (and a client generated) without a running deployment.

The document is built from the very models the functions validate and answer with
(webcapture.openapi.document); tests/unit/test_openapi_document.py fails when the committed file differs
from what the code generates, so run this after changing a request or answer model.

    python scripts/write_openapi.py [--check]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO / "layers" / "shared"), str(REPO)]

from webcapture.openapi.document import openapi_document  # noqa: E402

DOCUMENT = REPO / "docs" / "openapi.json"


def render() -> str:
    """The document as committed: indented, keys in the code's order, UTF-8, one final newline."""
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = DOCUMENT.read_text(encoding="utf-8") if DOCUMENT.exists() else ""
        if current != text:
            print(f"{DOCUMENT.relative_to(REPO)} is out of date: run `make openapi`", file=sys.stderr)
            return 1
        return 0
    DOCUMENT.write_text(text, encoding="utf-8")
    print(f"wrote {DOCUMENT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
