"""A deployed stack's API for the benchmarks that otherwise start the local API: the same `call` (Bearer
key), no process of ours to sample or stop."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import requests


@dataclass
class DeployedApi:
    url: str  # the stage's base URL, e.g. https://abc123.execute-api.us-east-1.amazonaws.com/Prod
    api_key: str
    process: None = None  # nothing local runs it: no CPU to sample

    def call(self, method: str, path: str, *, key: str | None = None, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {key or self.api_key}", **dict(kwargs.pop("headers", {}))}
        return requests.request(method, self.url.rstrip("/") + path, headers=headers, timeout=60, **kwargs)

    @contextmanager
    def errors_shown(self) -> Iterator[None]:
        yield  # its functions' logs are in CloudWatch

    def stop(self) -> None:
        pass
