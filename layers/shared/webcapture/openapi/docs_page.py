"""GET /v1/docs: Swagger UI over the generated document, its assets bundled with the function (no CDN).

The assets (swagger-ui-dist, pinned and checked by hash) are fetched at build time by
scripts/fetch_docs_assets.sh into the docs function's folder; nothing is fetched at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from webcapture.errors import NotFound

# The only files served: a fixed table, so no request path ever reaches the file system.
ASSETS = {
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
}

# Relative URLs throughout: deployed, the page lives under the stage (/Prod/v1/docs), locally at /v1/docs.
DOCS_HTML = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>webcapture API</title>
  <link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="docs/assets/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({url: "openapi.json", dom_id: "#swagger-ui", deepLinking: true,
                                 defaultModelsExpandDepth: 0});
  </script>
</body>
</html>
"""


@dataclass(frozen=True)
class Asset:
    body: str
    content_type: str


@cache
def asset(folder: Path, name: str) -> Asset:
    """One bundled asset, read once per container; any other name is a 404."""
    content_type = ASSETS.get(name)
    if content_type is None:
        raise NotFound(f"No docs asset {name!r}")
    return Asset((folder / name).read_text(encoding="utf-8"), content_type)
