"""POST /v1/web/map: a site's URLs from its sitemaps and its start page (no browser)."""

from aws_lambda_powertools.event_handler import Response

from webcapture.api import create_resolver, current_caller, entry_point, request_body, success
from webcapture.credits import Operation
from webcapture.models.site_requests import MapRequest
from webcapture.observability import tracer
from webcapture.operations.map_site import map_site_urls

app = create_resolver()


@app.post("/v1/web/map")
@tracer.capture_method
def site_map() -> Response[str]:
    request = request_body(app, MapRequest)
    return success(app, map_site_urls(current_caller(app), request), Operation.MAP)


lambda_handler = entry_point(app)
