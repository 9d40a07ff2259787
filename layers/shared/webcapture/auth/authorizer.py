"""The Lambda TOKEN authorizer's logic: a bearer token in, an IAM policy with the caller's context out."""

from __future__ import annotations

from typing import Any

from webcapture.auth import api_keys, refusals
from webcapture.auth.session_tokens import looks_like_jwt, verify_session_claims
from webcapture.errors import Unauthorized


def authenticate(authorization: str | None) -> dict[str, str]:
    """The authorizer context for a valid `Bearer` header; Unauthorized saying why not otherwise."""
    header = (authorization or "").strip()
    if not header:
        raise Unauthorized(refusals.NO_HEADER)
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthorized(refusals.NOT_BEARER)
    if looks_like_jwt(token):
        claims = verify_session_claims(token)
        # API Gateway caches this answer (ReauthorizeEvery); `exp` lets the function refuse a token that
        # expired since (auth/caller.py).
        return {"userId": claims.user_id, "tokenKind": "session", "keyId": "", "limited": "false",
                "exp": str(claims.expires_at)}
    record = api_keys.find_by_key(token) if api_keys.looks_like_api_key(token) else None  # one GetItem
    if record is None:
        raise refusals.key_refused(expired=False)
    refusal = record.refusal()
    if refusal is not None:
        raise refusal
    return {
        "userId": record.user_id,
        "tokenKind": "api_key",
        "keyId": record.id,
        "limited": "true" if record.item.get("remaining") is not None else "false",
    }


def deny_all_routes(method_arn: str, message: str) -> dict[str, Any]:
    """A refusal API Gateway renders with its ACCESS_DENIED gateway response, whose template reads the
    message from the context (template.yaml): the caller reads why, exactly as the function would say it."""
    answer = allow_all_routes(method_arn, "anonymous", {"message": message})
    answer["policyDocument"]["Statement"][0]["Effect"] = "Deny"
    return answer


def allow_all_routes(method_arn: str, principal_id: str, context: dict[str, str]) -> dict[str, Any]:
    """Allow every route of this API and stage, so a cached answer never causes a 403 on another route."""
    # arn:aws:execute-api:region:account:apiId/stage/METHOD/resource...
    prefix, _, path = method_arn.partition("/")
    stage = path.split("/", 1)[0] if path else "*"
    return {
        "principalId": principal_id,
        "policyDocument": {
            "Version": "2012-10-17",
            "Statement": [
                {"Action": "execute-api:Invoke", "Effect": "Allow", "Resource": f"{prefix}/{stage}/*"}
            ],
        },
        "context": context,
    }
