"""A session token's `exp` ends the session in the function too, whatever the authorizer's cache says."""

from __future__ import annotations

import time
from typing import Any

import pytest

from webcapture.auth import EXPIRY_LEEWAY_S
from webcapture.auth.caller import caller_from_event
from webcapture.errors import Unauthorized


def event(**context: Any) -> dict[str, Any]:
    return {"requestContext": {"authorizer": {"userId": "u1", "tokenKind": "session", "keyId": "",
                                              "limited": "false", **context}}}


# Offsets from now, applied when the test runs (not when it is collected: a long run would expire them).
@pytest.mark.parametrize(("offset", "as_text"), [(60, False), (60, True), (-EXPIRY_LEEWAY_S + 5, True)])
def test_a_session_before_its_expiry_is_the_caller(offset: int, as_text: bool) -> None:
    exp = int(time.time()) + offset
    caller = caller_from_event(event(exp=str(exp) if as_text else exp))
    assert (caller.user_id, caller.kind) == ("u1", "session")


@pytest.mark.parametrize("offset", [-EXPIRY_LEEWAY_S - 5, -299])
def test_an_expired_session_is_401(offset: int) -> None:
    with pytest.raises(Unauthorized):
        caller_from_event(event(exp=str(int(time.time()) + offset)))


@pytest.mark.parametrize("exp", [None, "", "soon", "nan", "inf"])
def test_an_unknown_expiry_is_401(exp: Any) -> None:
    context = {} if exp is None else {"exp": exp}
    with pytest.raises(Unauthorized):
        caller_from_event(event(**context))
