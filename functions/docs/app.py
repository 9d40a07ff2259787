"""GET /v1/openapi.json and GET /v1/docs (Swagger UI): the API described, served without credentials; `/` and
`/docs` lead to the docs page."""

from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_public_resolver
from webcapture.edge.responses import json_document, static
from webcapture.observability import tracer
from webcapture.openapi.docs_page import DOCS_HTML, asset
from webcapture.openapi.document import openapi_document
from webcapture.openapi.served_at import deployment_url

ASSETS_DIR = Path(__file__).resolve().parent / "assets"

app = create_public_resolver()


@app.get("/v1/openapi.json")
@tracer.capture_method
def openapi() -> Response[str]:
    document = openapi_document()
    served_at = deployment_url(app.current_event.raw_event)
    if served_at is not None:
        document["servers"] = [{"url": served_at, "description": "this deployment"}]
    return json_document(document)


@app.get("/")
@app.get("/docs")
@tracer.capture_method
def to_docs() -> Response[str]:
    """Where a person who types the API's address, or /docs, means to go."""
    location = (deployment_url(app.current_event.raw_event) or "") + "/v1/docs"
    return Response(302, "text/plain; charset=utf-8", f"See {location}\n", headers={"Location": location})


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
