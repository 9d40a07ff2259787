"""Reading template.yaml the way the local API needs it: routes, authorizer, gateway responses, env vars.

The template is the only route table: nothing here lists endpoints. Intrinsic functions are resolved
against a small local context (parameter defaults, logical ids as physical names, overrides).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from localapi.cfn_foreach import expand_for_each

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_PATH = REPO_ROOT / "template.yaml"


# libyaml's loader when PyYAML was built with it: parsing the template in pure Python takes 0.3 s, which every
# test that builds the stack's tables in moto paid.
if TYPE_CHECKING:
    _SafeLoader = yaml.SafeLoader
else:
    _SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CfnLoader(_SafeLoader):
    """PyYAML loader that keeps CloudFormation's short tags (!Ref, !Sub, ...) as their long form."""


def _construct_tag(loader: _CfnLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    name = "Ref" if suffix == "Ref" else f"Fn::{suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if suffix == "GetAtt":
            value = str(value).split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: Path = TEMPLATE_PATH) -> dict[str, Any]:
    """The template with its loops expanded: a fresh copy each call, so a caller may change it."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _parsed:
        with path.open() as handle:
            loaded: dict[str, Any] = yaml.load(handle, Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass
        _parsed[key] = expand_for_each(loaded)
    return copy.deepcopy(_parsed[key])


_parsed: dict[tuple[str, int, int], dict[str, Any]] = {}


_NO_VALUE = object()  # what Ref AWS::NoValue resolves to, until the property holding it is dropped


@dataclass
class Resolver:
    """Resolves intrinsic functions for local use."""

    template: dict[str, Any]
    physical_names: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)  # "Logical.Attr" -> value
    region: str = "us-east-1"
    parameters: dict[str, str] = field(default_factory=dict)  # overrides of the template's defaults

    def parameter(self, name: str) -> str:
        pseudo = {"AWS::Region": self.region, "AWS::URLSuffix": "amazonaws.com",
                  "AWS::AccountId": "123456789012", "AWS::Partition": "aws",
                  "AWS::StackName": "webcapture-local"}
        if name in pseudo:
            return pseudo[name]
        params = self.template.get("Parameters", {})
        if name in self.parameters:
            return self.parameters[name]
        if name in params:
            return str(params[name].get("Default", ""))
        return self.physical_names.get(name, name)

    def condition(self, name: str) -> bool:
        return bool(self.resolve(self.template.get("Conditions", {})[name]))

    def resolve(self, value: Any) -> Any:
        # A property or list item that resolves to AWS::NoValue is left out, as CloudFormation does.
        if isinstance(value, list):
            return [item for item in (self.resolve(v) for v in value) if item is not _NO_VALUE]
        if not isinstance(value, dict):
            return value
        if len(value) == 1:
            (key, arg), = value.items()
            if key == "Ref":
                return _NO_VALUE if arg == "AWS::NoValue" else self.parameter(arg)
            if key == "Fn::GetAtt":
                return self.attributes.get(".".join(arg), f"{arg[0]}.{arg[1]}")
            if key == "Fn::Sub":
                return self._sub(arg)
            if key == "Fn::Equals":
                left, right = self.resolve(arg)
                return left == right
            if key == "Fn::Not":
                return not self.resolve(arg[0])
            if key == "Fn::And":
                return all(self.resolve(condition) for condition in arg)
            if key == "Fn::If":
                name, when_true, when_false = arg
                return self.resolve(when_true if self.condition(name) else when_false)
            if key == "Fn::Join":
                separator, parts = arg
                return separator.join(str(p) for p in self.resolve(parts))
        resolved = {k: self.resolve(v) for k, v in value.items()}
        return {k: v for k, v in resolved.items() if v is not _NO_VALUE}

    def _sub(self, arg: Any) -> str:
        text, extra = (arg, {}) if isinstance(arg, str) else (arg[0], self.resolve(arg[1]))

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in extra:
                return str(extra[name])
            if "." in name:
                return self.attributes.get(name, name)
            return self.parameter(name)

        return re.sub(r"\$\{([^}!]+)\}", replace, text)


@dataclass(frozen=True)
class Route:
    method: str  # upper case, or ANY
    path: str
    function: str  # logical id
    authorized: bool = True  # False where the event says `Auth: {Authorizer: NONE}` (public docs)


@dataclass(frozen=True)
class FunctionSpec:
    logical_id: str
    code_uri: Path
    handler: str
    timeout_s: int
    memory_mb: int
    environment: dict[str, str]


@dataclass(frozen=True)
class AuthorizerSpec:
    function: str
    header: str
    validation_expression: str | None
    ttl_s: int


@dataclass(frozen=True)
class ApiSpec:
    stage: str
    routes: list[Route]
    functions: dict[str, FunctionSpec]
    authorizer: AuthorizerSpec | None
    gateway_responses: dict[str, dict[str, Any]]
    binary_media_types: list[str]
    # Stage throttling from MethodSettings (requests per second, burst); None when the stage sets none.
    throttle: tuple[float, int] | None = None


@dataclass(frozen=True)
class QueueSource:
    """An SQS event source of a function (Lambda's event source mapping), as the local API plays it."""

    function: str  # logical id
    queue: str  # the queue's logical id
    batch_size: int
    maximum_concurrency: int
    partial_failures: bool  # FunctionResponseTypes has ReportBatchItemFailures


def read_queue_sources(template: dict[str, Any], resolver: Resolver) -> list[QueueSource]:
    sources = []
    for name, res in _resources_of(template, "AWS::Serverless::Function").items():
        for event in res["Properties"].get("Events", {}).values():
            if event.get("Type") != "SQS":
                continue
            props = event["Properties"]
            queue = props["Queue"]["Fn::GetAtt"][0]
            scaling = props.get("ScalingConfig", {})
            sources.append(QueueSource(
                function=name, queue=queue, batch_size=int(resolver.resolve(props.get("BatchSize", 10))),
                maximum_concurrency=int(resolver.resolve(scaling.get("MaximumConcurrency", 2))),
                partial_failures="ReportBatchItemFailures" in props.get("FunctionResponseTypes", []),
            ))
    return sources


def _resources_of(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: res for name, res in template.get("Resources", {}).items() if res.get("Type") == kind}


def read_api(template: dict[str, Any], resolver: Resolver) -> ApiSpec:
    """The one REST API of the template, as the local gateway serves it."""
    (api_id, api), = _resources_of(template, "AWS::Serverless::Api").items()
    api_props = api["Properties"]
    globals_fn = template.get("Globals", {}).get("Function", {})
    functions: dict[str, FunctionSpec] = {}
    routes: list[Route] = []
    for name, res in _resources_of(template, "AWS::Serverless::Function").items():
        props = res["Properties"]
        env = {**globals_fn.get("Environment", {}).get("Variables", {}),
               **props.get("Environment", {}).get("Variables", {})}
        functions[name] = FunctionSpec(
            logical_id=name,
            code_uri=REPO_ROOT / props["CodeUri"],
            handler=props.get("Handler", globals_fn.get("Handler", "app.lambda_handler")),
            timeout_s=int(props.get("Timeout", globals_fn.get("Timeout", 3))),
            memory_mb=int(props.get("MemorySize", globals_fn.get("MemorySize", 128))),
            environment={k: str(resolver.resolve(v)) for k, v in env.items()},
        )
        for event in props.get("Events", {}).values():
            if event.get("Type") == "Api" and event["Properties"].get("RestApiId", {}).get("Ref") == api_id:
                event_props = event["Properties"]
                public = event_props.get("Auth", {}).get("Authorizer") == "NONE"
                routes.append(Route(event_props["Method"].upper(), event_props["Path"], name, not public))

    authorizer = None
    auth = api_props.get("Auth", {})
    if auth.get("DefaultAuthorizer"):
        spec = auth["Authorizers"][auth["DefaultAuthorizer"]]
        identity = spec.get("Identity", {})
        authorizer = AuthorizerSpec(
            function=spec["FunctionArn"]["Fn::GetAtt"][0],
            header=identity.get("Header", "Authorization"),
            validation_expression=identity.get("ValidationExpression"),
            ttl_s=int(identity.get("ReauthorizeEvery", 300)),
        )
    return ApiSpec(
        stage=str(resolver.resolve(api_props.get("StageName", "Prod"))),
        routes=routes,
        functions=functions,
        authorizer=authorizer,
        gateway_responses=api_props.get("GatewayResponses", {}),
        binary_media_types=[t.replace("~1", "/") for t in api_props.get("BinaryMediaTypes", [])],
        throttle=_stage_throttle(api_props, resolver),
    )


def _stage_throttle(api_props: dict[str, Any], resolver: Resolver) -> tuple[float, int] | None:
    """The stage-wide `/*` `*` method setting's rate and burst, as the template resolves them."""
    for setting in api_props.get("MethodSettings", []):
        if setting.get("ResourcePath") == "/*" and setting.get("HttpMethod") == "*":
            rate, burst = setting.get("ThrottlingRateLimit"), setting.get("ThrottlingBurstLimit")
            if rate is not None and burst is not None:
                return float(resolver.resolve(rate)), int(resolver.resolve(burst))
    return None
