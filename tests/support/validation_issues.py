"""The 422 issues a request model gives for a payload (the contract's Zod-style issues)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from webcapture.errors import RequestValidationError
from webcapture.validation import validate_request


def issues_for(model: type[BaseModel], payload: Any) -> list[dict[str, Any]]:
    with pytest.raises(RequestValidationError) as caught:
        validate_request(model, payload)
    return caught.value.issues


def only_issue(model: type[BaseModel], payload: Any) -> dict[str, Any]:
    issues = issues_for(model, payload)
    assert len(issues) == 1, issues
    return issues[0]
