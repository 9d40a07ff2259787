"""The test process's own webcapture stores pointed at a moto server (to create keys and read what a request
charged), for as long as a fixture holds them. Credits left: api_answers.remaining."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

from webcapture import aws
from webcapture.settings import get_settings

if TYPE_CHECKING:  # only named here; conftest.py imports this module for every test
    from tests.support.local_api import LocalApi


@contextmanager
def stores_environment(monkeypatch: pytest.MonkeyPatch, values: Mapping[str, str]) -> Iterator[None]:
    """`values` in this process's environment, with settings and AWS clients made afresh on the way in and
    out (the variables themselves are undone with `monkeypatch`)."""
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    aws.reset_clients()
    try:
        yield
    finally:
        get_settings.cache_clear()
        aws.reset_clients()


@contextmanager
def stack_stores(api: LocalApi, monkeypatch: pytest.MonkeyPatch, **overrides: str) -> Iterator[None]:
    """The local API's environment (and `overrides`, e.g. another AWS endpoint) for this process's stores."""
    with stores_environment(monkeypatch, {**api.environment, **overrides}):
        yield
