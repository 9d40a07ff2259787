"""The test process's own webcapture stores pointed at a local API's moto server (to create keys and read
what a request charged), for as long as a fixture holds them. Credits left: api_answers.remaining."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support.local_api import LocalApi
from webcapture import aws
from webcapture.settings import get_settings


@contextmanager
def stack_stores(api: LocalApi, monkeypatch: pytest.MonkeyPatch, **overrides: str) -> Iterator[None]:
    """The stack's environment in this process (and `overrides`, e.g. another AWS endpoint), its settings
    and AWS clients made afresh on the way in and out."""
    for name, value in {**api.environment, **overrides}.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    aws.reset_clients()
    try:
        yield
    finally:
        get_settings.cache_clear()
        aws.reset_clients()
