"""GET /v1/openapi.json and GET /v1/docs (Swagger UI): the API described, served without credentials."""

from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_public_resolver
from webcapture.edge.responses import json_document, static
from webcapture.observability import tracer
from webcapture.openapi.docs_page import DOCS_HTML, asset
from webcapture.openapi.document import openapi_document

ASSETS_DIR = Path(__file__).resolve().parent / "assets"

app = create_public_resolver()


@app.get("/v1/openapi.json")
@tracer.capture_method
def openapi() -> Response[str]:
    return json_document(openapi_document())


@app.get("/v1/docs")
@tracer.capture_method
def docs() -> Response[str]:
    return static(DOCS_HTML, "text/html; charset=utf-8")


@app.get("/v1/docs/assets/<name>")
@tracer.capture_method
def docs_asset(name: str) -> Response[Any]:
    found = asset(ASSETS_DIR, name)
    return static(found.body, found.content_type)


lambda_handler = entry_point(app)
