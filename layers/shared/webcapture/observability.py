"""Powertools Logger, Tracer and Metrics, one of each per container."""

from __future__ import annotations

import warnings

from aws_lambda_powertools import Logger, Metrics, Tracer

from webcapture.settings import get_settings

_settings = get_settings()

logger = Logger(service=_settings.service_name)
# Tracer disables itself outside Lambda (or with POWERTOOLS_TRACE_DISABLED), so local runs need no X-Ray.
tracer = Tracer(service=_settings.service_name)
metrics = Metrics(namespace=_settings.metrics_namespace, service=_settings.service_name)

# A request that fails before any metric is added is normal here; Powertools would warn on every one.
warnings.filterwarnings("ignore", message="No application metrics to publish")
