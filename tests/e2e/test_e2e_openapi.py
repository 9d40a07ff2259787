"""GET /v1/openapi.json and /v1/docs over the local API: public, valid, complete, and rendered by Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests
from openapi_spec_validator import validate

from localapi.cfn_template import Resolver, load_template, read_api
from tests.support.fixture_server import EGRESS_ALLOW
from tests.support.local_api import LocalApi
from webcapture.browser.page_session import LoadedPage, with_loaded_page
from webcapture.images import image_info
from webcapture.openapi.endpoints import ENDPOINTS
from webcapture.settings import get_settings

DOCS_ROUTES = {"/v1/openapi.json", "/v1/docs", "/v1/docs/assets/{name}", "/", "/docs"}


def test_document_is_public_and_valid_openapi(local_api: LocalApi) -> None:
    response = requests.get(local_api.url + "/v1/openapi.json", timeout=30)  # no Authorization header
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("application/json")
    document = response.json()
    validate(document)  # openapi-spec-validator: raises on any violation of OpenAPI 3.1
    assert document["openapi"] == "3.1.0"
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    screenshot = document["paths"]["/v1/web/screenshot"]["post"]
    assert {"200", "303", "400", "401", "422", "429", "502", "504"} <= set(screenshot["responses"])
    assert set(screenshot["responses"]["200"]["content"]) == {"application/json", "image/png", "image/jpeg",
                                                              "image/webp"}
    waits = document["components"]["schemas"]["ScreenshotRequest"]["properties"]["waitTime"]
    assert (waits["minimum"], waits["maximum"]) == (0, 5000)


def test_document_names_every_routed_operation() -> None:
    template = load_template()
    api = read_api(template, Resolver(template, {}))
    routed = {(route.method.lower(), route.path) for route in api.routes
              if route.method != "ANY" and route.path not in DOCS_ROUTES}
    assert routed == {(endpoint.method, endpoint.path) for endpoint in ENDPOINTS}
    assert all(not route.authorized for route in api.routes if route.path in DOCS_ROUTES and route.method == "GET")


def test_docs_page_and_assets_need_no_credentials(local_api: LocalApi) -> None:
    page = requests.get(local_api.url + "/v1/docs", timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "swagger-ui-bundle.js" in page.text and "//cdn" not in page.text and "unpkg" not in page.text
    script = requests.get(local_api.url + "/v1/docs/assets/swagger-ui-bundle.js", timeout=30)
    assert script.status_code == 200 and "SwaggerUIBundle" in script.text
    missing = requests.get(local_api.url + "/v1/docs/assets/..%2F..%2Fapp.py", timeout=30)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    # The API itself still needs a key.
    assert requests.post(local_api.url + "/v1/web/links", json={}, timeout=30).status_code == 401


def test_docs_page_renders_in_chromium(local_api: LocalApi, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("WEBCAPTURE_EGRESS_ALLOW", EGRESS_ALLOW)
    get_settings.cache_clear()

    def rendered(loaded: LoadedPage) -> tuple[list[str], bytes]:
        page = loaded.page
        page.wait_for_selector(".opblock", timeout=15_000)
        paths = page.eval_on_selector_all(".opblock .opblock-summary-path", "els => els.map(e => e.textContent)")
        return [p.replace("\u200b", "") for p in paths], page.screenshot(full_page=False)

    paths, image = with_loaded_page(local_api.url + "/v1/docs", 0, rendered)
    get_settings.cache_clear()
    assert sorted(paths) == sorted(endpoint.path for endpoint in ENDPOINTS)
    (tmp_path / "docs.png").write_bytes(image)  # kept by pytest's tmp_path for a look after a failure
    info = image_info(image)
    assert (info.width, info.height) == (1280, 800)
    # A blank 1280x800 page compresses to under 10 KB; Swagger UI's header, text and coloured operation
    # bars come to well over 50 KB.
    assert len(image) > 50_000
