"""JWT session tokens (docs/api.md#authentication): verified against a JWKS URL or an HS256 secret, nothing
else.

The algorithm list is explicit and split by key type, so an RS256 public key can never be used as an
HS256 secret (algorithm confusion) and `alg: none` is never accepted.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import jwt

from webcapture.auth import EXPIRY_LEEWAY_S, refusals
from webcapture.settings import Settings, get_settings

ASYMMETRIC_ALGORITHMS = frozenset({"EdDSA", "ES256", "RS256"})
_REQUIRED_CLAIMS = ["exp", "sub"]


def looks_like_jwt(token: str) -> bool:
    return token.count(".") == 2


@lru_cache(maxsize=4)
def _jwks_client(url: str) -> jwt.PyJWKClient:
    # PyJWKClient caches the key set (and refetches on an unknown kid), once per container.
    return jwt.PyJWKClient(url, cache_jwk_set=True, lifespan=300, timeout=3)


def _signing_key(token: str, settings: Settings) -> tuple[Any, list[str]]:
    header = jwt.get_unverified_header(token)
    algorithm = header.get("alg")
    if settings.jwt_jwks_url and algorithm in ASYMMETRIC_ALGORITHMS and algorithm in settings.jwt_algorithms:
        return _jwks_client(settings.jwt_jwks_url).get_signing_key_from_jwt(token).key, [algorithm]
    if settings.jwt_hs256_secret and algorithm == "HS256":
        return settings.jwt_hs256_secret, ["HS256"]
    raise jwt.InvalidAlgorithmError(f"algorithm {algorithm!r} is not accepted")


@dataclass(frozen=True)
class SessionClaims:
    user_id: str  # `sub`
    expires_at: int  # `exp`, seconds since the epoch


def verify_session_claims(token: str, settings: Settings | None = None) -> SessionClaims:
    """The token's user id and expiry, or Unauthorized saying why not."""
    settings = settings or get_settings()
    if not (settings.jwt_jwks_url or settings.jwt_hs256_secret):
        raise refusals.session_failed("session tokens are not enabled on this deployment")
    try:
        key, algorithms = _signing_key(token, settings)
        claims = jwt.decode(
            token,
            key,
            algorithms=algorithms,
            audience=settings.jwt_audience,
            issuer=settings.jwt_issuer,
            options={
                "require": _REQUIRED_CLAIMS + (["iss"] if settings.jwt_issuer else [])
                + (["aud"] if settings.jwt_audience else []),
                "verify_aud": settings.jwt_audience is not None,
            },
            leeway=EXPIRY_LEEWAY_S,
        )
    except jwt.ExpiredSignatureError as exc:
        raise refusals.session_failed("it has expired") from exc
    except jwt.InvalidSignatureError as exc:
        raise refusals.session_failed("its signature does not verify") from exc
    except jwt.MissingRequiredClaimError as exc:
        raise refusals.session_failed(f"it has no '{exc.claim}' claim") from exc
    except (jwt.InvalidAudienceError, jwt.InvalidIssuerError) as exc:
        raise refusals.session_failed("its issuer or audience is not this deployment's") from exc
    except (jwt.PyJWTError, ValueError) as exc:
        raise refusals.session_failed("it is not a valid token for this deployment") from exc
    subject = claims.get("sub")
    if not isinstance(subject, str) or not subject:
        raise refusals.session_failed("it has no subject")
    return SessionClaims(user_id=subject, expires_at=int(claims["exp"]))
