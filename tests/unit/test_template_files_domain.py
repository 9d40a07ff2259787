"""Permanent URLs on a domain of your own: template.yaml's FilesDomainName and FilesCertificateArn, resolved as
CloudFormation would resolve them."""

from __future__ import annotations

from typing import Any

from localapi.cfn_template import Resolver, load_template, read_api

DISTRIBUTION_DOMAIN = "d111111abcdef8.cloudfront.net"
CERTIFICATE = "arn:aws:acm:us-east-1:123456789012:certificate/0f0e0d0c-1111-2222-3333-444455556666"


def resolved(**parameters: str) -> tuple[Resolver, dict[str, Any]]:
    template = load_template()
    resolver = Resolver(template, attributes={"FilesDistribution.DomainName": DISTRIBUTION_DOMAIN},
                        parameters=parameters)
    return resolver, template


def test_by_default_permanent_urls_use_the_distributions_own_domain() -> None:
    resolver, template = resolved()
    api = read_api(template, resolver)
    assert {f.environment["PUBLIC_BASE_URL"] for f in api.functions.values()} == {f"https://{DISTRIBUTION_DOMAIN}"}
    config = resolver.resolve(template["Resources"]["FilesDistribution"]["Properties"]["DistributionConfig"])
    assert config["ViewerCertificate"] == {"CloudFrontDefaultCertificate": True}
    assert "Aliases" not in config  # AWS::NoValue: the property is left out
    assert resolver.resolve(template["Outputs"]["FilesBaseUrl"]["Value"]) == f"https://{DISTRIBUTION_DOMAIN}"


def test_a_domain_of_your_own_is_the_alias_the_certificate_and_the_url_prefix() -> None:
    resolver, template = resolved(FilesDomainName="files.example.com", FilesCertificateArn=CERTIFICATE)
    api = read_api(template, resolver)
    assert {f.environment["PUBLIC_BASE_URL"] for f in api.functions.values()} == {"https://files.example.com"}
    config = resolver.resolve(template["Resources"]["FilesDistribution"]["Properties"]["DistributionConfig"])
    assert config["Aliases"] == ["files.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": CERTIFICATE, "SslSupportMethod": "sni-only", "MinimumProtocolVersion": "TLSv1.2_2021"}
    assert resolver.resolve(template["Outputs"]["FilesBaseUrl"]["Value"]) == "https://files.example.com"
    # Where the domain's DNS points: the distribution itself.
    assert resolver.resolve(template["Outputs"]["FilesDistributionDomain"]["Value"]) == DISTRIBUTION_DOMAIN


def test_a_domain_without_a_certificate_is_refused_before_anything_is_created() -> None:
    resolver, template = resolved(FilesDomainName="files.example.com")
    rule = template["Rules"]["FilesDomainNeedsCertificate"]
    assert resolver.resolve(rule["RuleCondition"]) is True
    assert [resolver.resolve(a["Assert"]) for a in rule["Assertions"]] == [False]  # the stack is refused
    # ...and were it not, nothing would half-change: the distribution keeps its own certificate.
    assert resolver.condition("HasFilesDomain") is False
    assert resolved(FilesDomainName="files.example.com", FilesCertificateArn=CERTIFICATE)[0].condition(
        "HasFilesDomain")
