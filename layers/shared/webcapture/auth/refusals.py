"""The 401 messages: "Authentication required." and a second sentence that says which case it is.

One module, so API Gateway's own refusal (the UNAUTHORIZED gateway response in template.yaml, which must say
the same as NO_HEADER), the authorizer's (its Deny answer carries the message to the ACCESS_DENIED gateway
response) and the function's read the same; docs/api.md#authentication lists them. An unknown key and a
disabled key get one sentence: a caller never learns which of the two it holds.
"""

from __future__ import annotations

from webcapture.errors import Unauthorized

REQUIRED = "Authentication required."
NO_HEADER = (f"{REQUIRED} No Authorization header was sent: send 'Authorization: Bearer <your API key>' "
             "(an x-api-key header is not read).")
NOT_BEARER = (f"{REQUIRED} The Authorization header must be 'Bearer <your API key>': another scheme, or "
              "no token after 'Bearer', is not accepted.")
INVALID_KEY = f"{REQUIRED} The API key is not valid."
EXPIRED_KEY = f"{REQUIRED} The API key has expired."
SESSION_FAILED = f"{REQUIRED} The session token failed verification"


def session_failed(reason: str) -> Unauthorized:
    """A session token (JWT) refused: `reason` says how (expired, a bad signature, a wrong audience)."""
    return Unauthorized(f"{SESSION_FAILED}: {reason}.")


def key_refused(expired: bool) -> Unauthorized:
    return Unauthorized(EXPIRED_KEY if expired else INVALID_KEY)
