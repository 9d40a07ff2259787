"""What a caller cannot make the service do for nothing, end to end through the local API: globs that would
backtrack, sitemaps that would fill memory, schemas no answer can match."""

from __future__ import annotations

import time
from typing import Any

from tests.support.api_answers import assert_success
from tests.support.fixture_server import get_server
from tests.support.local_api import LocalApi
from webcapture.glob_match import MAX_GLOB_WILDCARDS


def _timed_content(api: LocalApi, url: str, **fields: Any) -> tuple[float, Any]:
    start = time.monotonic()
    response = api.call("POST", "/v1/web/content", json={"url": url, **fields})
    return time.monotonic() - start, response


def test_backtracking_globs_are_refused_or_matched_at_once(local_api: LocalApi) -> None:
    # The probe: a page URL ending in forty "a", a glob of "*a" pairs and `headers` (a route that takes
    # every request, so matching happens in Python too). Ten pairs took past API Gateway's 29 s.
    url = get_server().url("/pc-resources.html?" + "a" * 40)
    before, response = _timed_content(local_api, url)
    assert_success(response, 1)
    for pairs in (8, 10, MAX_GLOB_WILDCARDS - 2):
        glob = "**/" + "*a" * pairs + "*b"
        took, response = _timed_content(local_api, url, headers={"X-Probe": "1"},
                                        rejectRequestPattern=[glob] * 50)
        assert_success(response, 1)
        assert took < before + 2, (pairs, took, before)
    too_wide = "**/" + "*a" * MAX_GLOB_WILDCARDS + "*b"
    _, response = _timed_content(local_api, url, rejectRequestPattern=[too_wide])
    assert response.status_code == 422
    issue = response.json()["error"]["issues"][0]
    assert issue["path"] == ["rejectRequestPattern", 0] and f"{MAX_GLOB_WILDCARDS} wildcards" in issue["message"]
    # The container is not left busy: the next plain request is as fast as the first.
    after, response = _timed_content(local_api, url)
    assert_success(response, 1)
    assert after < before + 2, (after, before)
