"""GET /v1/signing/secret and POST /v1/signing/secret/rotate: the secret that signs the caller's links."""

from aws_lambda_powertools.event_handler import Response

from webcapture.credits import Operation
from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller
from webcapture.edge.responses import success
from webcapture.observability import tracer
from webcapture.operations.signing_secret import rotate_signing_secret, signing_secret

app = create_resolver()


@app.get("/v1/signing/secret")
@tracer.capture_method
def secret() -> Response[str]:
    return success(app, signing_secret(current_caller(app)), Operation.SIGNING_SECRET)


@app.post("/v1/signing/secret/rotate")
@tracer.capture_method
def rotate() -> Response[str]:
    return success(app, rotate_signing_secret(current_caller(app)), Operation.SIGNING_SECRET)


lambda_handler = entry_point(app)
