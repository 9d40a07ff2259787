"""A session token's `exp` ends the session in the function too, whatever the authorizer's cache says."""

from __future__ import annotations

import time
from typing import Any

import pytest

from webcapture.auth.caller import caller_from_event
from webcapture.auth.session_tokens import EXPIRY_LEEWAY_S
from webcapture.errors import Unauthorized


def event(**context: Any) -> dict[str, Any]:
    return {"requestContext": {"authorizer": {"userId": "u1", "tokenKind": "session", "keyId": "",
                                              "limited": "false", **context}}}


@pytest.mark.parametrize("exp", [int(time.time()) + 60, str(int(time.time()) + 60),
                                 str(int(time.time()) - EXPIRY_LEEWAY_S + 5)])
def test_a_session_before_its_expiry_is_the_caller(exp: Any) -> None:
    caller = caller_from_event(event(exp=exp))
    assert (caller.user_id, caller.kind) == ("u1", "session")


@pytest.mark.parametrize("exp", [str(int(time.time()) - EXPIRY_LEEWAY_S - 5), str(int(time.time()) - 299), None,
                                 "", "soon", "nan", "inf"])
def test_an_expired_or_unknown_expiry_is_401(exp: Any) -> None:
    context = {} if exp is None else {"exp": exp}
    with pytest.raises(Unauthorized):
        caller_from_event(event(**context))
