"""POST /v1/web/map: a site's URLs from its sitemaps and its start page (no browser)."""

from aws_lambda_powertools.event_handler import Response

from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, request_body
from webcapture.edge.responses import success
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
