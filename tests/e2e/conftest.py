"""One local API for the whole end-to-end session, and the test process's own AWS clients pointed at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.api_answers import JWT_SECRET
from tests.support.fake_openai import FakeOpenAI
from tests.support.local_api import LocalApi, start_local_api
from tests.support.stack_stores import stack_stores


@pytest.fixture(scope="session")
def fake_openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="session")
def local_api(fake_openai: FakeOpenAI) -> Iterator[LocalApi]:
    # Loopback is allowed for this stack only so it can reach the suite's own fixture server; a short
    # request budget keeps the never-loading page's test brief, and an HTML limit under the default
    # (10 MiB) lets a page built in the browser pass it within that budget.
    api = start_local_api({"JWT_HS256_SECRET": JWT_SECRET, "WEBCAPTURE_EGRESS_ALLOW": "127.0.0.0/8",
                           "WEBCAPTURE_REQUEST_BUDGET_MS": "8000", "WEBCAPTURE_MAX_HTML_CHARS": "1000000",
                           "OPENAI_BASE_URL": fake_openai.base_url, "OPENAI_API_KEY": "sk-e2e-test-key",
                           "WEBCAPTURE_AI_TIMEOUT_S": "3"})
    yield api
    api.stop()


@pytest.fixture
def stack_aws(local_api: LocalApi, monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalApi]:
    """webcapture's own stores in this process talk to the stack's moto server (to create keys, files)."""
    with stack_stores(local_api, monkeypatch):
        yield local_api
