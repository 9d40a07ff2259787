"""POST /v1/files/delete: delete one of the caller's stored files."""

from aws_lambda_powertools.event_handler import Response

from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller, request_body
from webcapture.edge.responses import success
from webcapture.models.requests import FileDeleteRequest
from webcapture.observability import tracer
from webcapture.operations.delete_file import delete_file

app = create_resolver()


@app.post("/v1/files/delete")
@tracer.capture_method
def delete() -> Response[str]:
    request = request_body(app, FileDeleteRequest)
    return success(app, delete_file(current_caller(app), request), Operation.FILES_DELETE)


lambda_handler = entry_point(app)
