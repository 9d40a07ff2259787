"""What the client (clients/python) carries of the service, written again so it needs nothing of the
service: the tools' input schemas (tool_schemas.json) and the signed links' signature. Each must stay equal
to the service's own."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from webcapture.signing.signatures import signed_query as service_signed_query
from webcapture_client.signed_links import signed_query as client_signed_query

REPO = Path(__file__).resolve().parents[2]


def _writer():  # scripts/ is not a package: load the script by its path
    spec = importlib.util.spec_from_file_location("write_tool_schemas", REPO / "scripts" / "write_tool_schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_tool_schemas_are_the_request_models() -> None:
    writer = _writer()
    assert writer.SCHEMAS.read_text(encoding="utf-8") == writer.render(), "run `make tool-schemas`"


@given(secret=st.text(min_size=1, max_size=40),
       params=st.dictionaries(st.text(min_size=1, max_size=12), st.text(max_size=30), max_size=8))
def test_the_client_signs_as_the_service_checks(secret: str, params: dict[str, str]) -> None:
    assert client_signed_query(secret, params) == service_signed_query(secret, params)
