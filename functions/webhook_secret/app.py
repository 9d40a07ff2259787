"""GET /v1/webhooks/secret: the caller's webhook signing secret; POST .../rotate: a new one."""

from aws_lambda_powertools.event_handler import Response

from webcapture.edge.lambda_entry import entry_point
from webcapture.edge.middleware import create_resolver
from webcapture.edge.requests import current_caller
from webcapture.edge.responses import answer
from webcapture.jobs.webhook_secrets import current_secret, rotate_secret
from webcapture.observability import tracer

app = create_resolver()


@app.get("/v1/webhooks/secret")
@tracer.capture_method
def secret() -> Response[str]:
    return answer(app, {"secret": current_secret(current_caller(app).user_id)}, 0)


@app.post("/v1/webhooks/secret/rotate")
@tracer.capture_method
def rotate() -> Response[str]:
    return answer(app, {"secret": rotate_secret(current_caller(app).user_id)}, 0)


lambda_handler = entry_point(app)
