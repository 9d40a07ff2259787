"""Secrets only where they are needed: the session-token settings (JWT_*, a signing secret among them) reach
the authorizer alone, never a function that runs Chromium on untrusted pages."""

from __future__ import annotations

from localapi.cfn_template import Resolver, load_template, read_api
from tests.artifact.harness import REPO_ROOT

TEMPLATE = load_template(REPO_ROOT / "template.yaml")
AUTHORIZER = "AuthorizerFunction"


def test_only_the_authorizer_gets_jwt_settings() -> None:
    resolver = Resolver(TEMPLATE, attributes={"FilesDistribution.DomainName": "d1.cloudfront.net"},
                        parameters={"JwtHs256Secret": "s" * 40, "JwtJwksUrl": "https://issuer.example/jwks"})
    api = read_api(TEMPLATE, resolver)
    assert api.authorizer is not None and api.authorizer.function == AUTHORIZER
    jwt_names = {name: {k for k in spec.environment if k.startswith("JWT_")} for name, spec in api.functions.items()}
    assert jwt_names.pop(AUTHORIZER) >= {"JWT_HS256_SECRET", "JWT_JWKS_URL", "JWT_ISSUER", "JWT_AUDIENCE"}
    assert api.functions[AUTHORIZER].environment["JWT_HS256_SECRET"] == "s" * 40
    assert len(jwt_names) >= 6 and all(names == set() for names in jwt_names.values()), jwt_names


def test_no_global_environment_variable_is_a_secret() -> None:
    variables = TEMPLATE["Globals"]["Function"]["Environment"]["Variables"]
    secret_parameters = {name for name, p in TEMPLATE["Parameters"].items() if p.get("NoEcho")}
    referenced = {value.get("Ref") for value in variables.values() if isinstance(value, dict)}
    assert not referenced & secret_parameters
    assert not [name for name in variables if name.startswith("JWT_")]
