"""JWT session tokens: accepted only when properly signed with an allowed algorithm and claims."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Iterator
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from tests.support.jwks_server import jwks_for, make_keys, serve_jwks
from webcapture.auth.session_tokens import verify_session_claims
from webcapture.errors import Unauthorized
from webcapture.settings import Settings

KEYS = make_keys()
SECRET = "s3cret-for-hs256-tests-which-is-long-enough"


def claims(**overrides: Any) -> dict[str, Any]:
    base = {"sub": "user-42", "exp": int(time.time()) + 300, "iss": "https://issuer.test", "aud": "webcapture"}
    base.update(overrides)
    return {k: v for k, v in base.items() if v is not None}


def sign(algorithm: str, payload: dict[str, Any] | None = None, key: Any = None) -> str:
    signing_key = key if key is not None else KEYS.get(algorithm, SECRET)
    return jwt.encode(payload or claims(), signing_key, algorithm=algorithm, headers={"kid": algorithm})


@pytest.fixture(scope="module")
def jwks_url() -> Iterator[str]:
    with serve_jwks(jwks_for(KEYS)) as url:
        yield url


@pytest.fixture
def jwks_settings(jwks_url: str) -> Settings:
    return Settings(jwt_jwks_url=jwks_url, jwt_issuer="https://issuer.test", jwt_audience="webcapture")


@pytest.mark.parametrize("algorithm", ["RS256", "ES256", "EdDSA"])
def test_asymmetric_tokens_from_jwks_are_accepted(jwks_settings: Settings, algorithm: str) -> None:
    assert verify_session_claims(sign(algorithm), jwks_settings).user_id == "user-42"


def test_hs256_secret_is_accepted() -> None:
    settings = Settings(jwt_hs256_secret=SECRET)
    assert verify_session_claims(sign("HS256", claims(iss=None, aud=None)), settings).user_id == "user-42"


def refused(token: str, settings: Settings) -> None:
    with pytest.raises(Unauthorized) as caught:
        verify_session_claims(token, settings)
    assert caught.value.message.startswith("Authentication required")


def test_expired(jwks_settings: Settings) -> None:
    refused(sign("RS256", claims(exp=int(time.time()) - 3600)), jwks_settings)


def test_missing_exp_and_missing_sub(jwks_settings: Settings) -> None:
    refused(sign("RS256", claims(exp=None)), jwks_settings)
    refused(sign("RS256", claims(sub=None)), jwks_settings)


def test_wrong_issuer_and_audience(jwks_settings: Settings) -> None:
    refused(sign("RS256", claims(iss="https://evil.test")), jwks_settings)
    refused(sign("RS256", claims(aud="someone-else")), jwks_settings)


def test_signed_with_another_key(jwks_settings: Settings) -> None:
    refused(sign("RS256", key=make_keys()["RS256"]), jwks_settings)
    refused(sign("HS256", key="another-secret-that-is-long-enough-too"), Settings(jwt_hs256_secret=SECRET))


def test_alg_none_is_refused(jwks_settings: Settings) -> None:
    token = jwt.encode(claims(), None, algorithm="none")
    refused(token, jwks_settings)
    refused(token, Settings(jwt_hs256_secret=SECRET))


def test_hs_rs_confusion_is_refused(jwks_settings: Settings) -> None:
    """An HS256 token whose 'secret' is the RSA public key must not pass as either kind."""
    public_pem = KEYS["RS256"].public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    header = jwt.utils.base64url_encode(b'{"alg":"HS256","typ":"JWT","kid":"RS256"}')
    body = jwt.utils.base64url_encode(jwt.api_jws.json.dumps(claims()).encode())
    signature = hmac.new(public_pem, header + b"." + body, hashlib.sha256).digest()
    forged = b".".join([header, body, jwt.utils.base64url_encode(signature)]).decode()
    refused(forged, jwks_settings)


def test_hs256_is_refused_when_only_jwks_is_configured(jwks_settings: Settings) -> None:
    refused(sign("HS256", key=SECRET), jwks_settings)


def test_nothing_configured_rejects_every_jwt() -> None:
    refused(sign("RS256"), Settings())
    refused(sign("HS256", claims(iss=None, aud=None)), Settings())


def test_algorithm_outside_the_configured_list(jwks_url: str) -> None:
    settings = Settings(jwt_jwks_url=jwks_url, jwt_algorithms=("ES256",), jwt_issuer="https://issuer.test",
                        jwt_audience="webcapture")
    refused(sign("RS256"), settings)
    assert verify_session_claims(sign("ES256"), settings).user_id == "user-42"


def test_garbage_token() -> None:
    refused("not.a.jwt", Settings(jwt_hs256_secret=SECRET))
