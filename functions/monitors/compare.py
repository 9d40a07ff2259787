"""The comparison queue's consumer (MonitorsCompareFunction): a screenshot monitor's check, handed over by the
screenshot function, compared with the monitor's last capture, stored and told
(docs/monitors.md#screenshot-comparison). The monitors' code, with its image library (Pillow); its own
function so that only it holds the file and webhook grants the comparison needs, with the memory a large
capture's decoding takes."""

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from webcapture.monitors.screenshot_compare import handle
from webcapture.observability import logger, metrics, tracer


@logger.inject_lambda_context
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return handle(event)
