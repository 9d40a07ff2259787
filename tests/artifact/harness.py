"""Running what `sam build` made the way Lambda would: a function's folder, its layers laid out as /opt, a
python3.12 with nothing else on its path, the environment the template gives it, and one event.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localapi.cfn_template import Resolver, load_template, read_api

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = REPO_ROOT / ".aws-sam" / "build"
EVENTS_DIR = REPO_ROOT / "events"
# One JSON line per artefact-test invocation: function, import (init) and invoke seconds, /tmp bytes.
COLD_START_LOG = REPO_ROOT / ".aws-sam" / "artifact-cold-starts.jsonl"
RUNNER = Path(__file__).with_name("lambda_runner.py")
PHYSICAL_NAMES = {"ApiKeysTable": "artifact-api-keys", "FilesTable": "artifact-files",
                  "FilesBucket": "artifact-files-bucket",
                  "FilesDistribution": ""}  # no distribution: a deleted file has no cached copy to invalidate
FILES_DOMAIN = "files.artifact.test"


def find_python312() -> Path | None:
    """A CPython 3.12 (Lambda's runtime; the built wheels are cp312): WEBCAPTURE_PYTHON312 (the Makefile sets
    it), then pyenv's installs, then PATH. pyenv's shim is skipped: it fails unless 3.12 is selected."""
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates = [os.environ.get("WEBCAPTURE_PYTHON312", ""),
                  *sorted(glob.glob(str(root / "versions" / "3.12*" / "bin" / "python3.12")), reverse=True),
                  shutil.which("python3.12") or ""]
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "-I", "-S", "-c", "import sys; print(sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 12)":
            return Path(candidate)
    return None


@dataclass(frozen=True)
class BuiltFunction:
    logical_id: str
    code_dir: Path
    handler: str
    memory_mb: int
    timeout_s: int
    layers: tuple[str, ...]
    layer_dirs: tuple[Path, ...]
    environment: dict[str, str]
    ephemeral_mb: int


def resolver_for(template: dict[str, Any]) -> Resolver:
    return Resolver(template, physical_names=dict(PHYSICAL_NAMES),
                    attributes={"FilesDistribution.DomainName": FILES_DOMAIN})


def built_functions(build_dir: Path = BUILD_DIR) -> dict[str, BuiltFunction]:
    """Every function of the built template, with its folder, layers and resolved environment."""
    template = load_template(build_dir / "template.yaml")
    api = read_api(template, resolver_for(template))
    resources = template["Resources"]
    global_layers = template.get("Globals", {}).get("Function", {}).get("Layers", [])
    functions = {}
    for name, spec in api.functions.items():
        props = resources[name]["Properties"]
        layers = tuple(ref["Ref"] for ref in [*global_layers, *props.get("Layers", [])])
        functions[name] = BuiltFunction(
            logical_id=name,
            code_dir=build_dir / props["CodeUri"],
            handler=spec.handler,
            memory_mb=spec.memory_mb,
            timeout_s=spec.timeout_s,
            layers=layers,
            layer_dirs=tuple(build_dir / resources[layer]["Properties"]["ContentUri"] for layer in layers),
            environment=spec.environment,
            ephemeral_mb=int(props.get("EphemeralStorage", {}).get("Size", 512)),
        )
    return functions


def lay_out_opt(layer_dirs: tuple[Path, ...], opt: Path) -> Path:
    """The layers extracted into one folder in order, later files replacing earlier ones, as Lambda does
    into /opt. Folders are real, files are symlinks into the build (cheap, and still the built bytes)."""
    for layer in layer_dirs:
        for source in sorted(layer.rglob("*")):
            target = opt / source.relative_to(layer)
            if source.is_dir():
                target.mkdir(parents=True, exist_ok=True)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.unlink(missing_ok=True)
                target.symlink_to(source)
    return opt


def lambda_environment(function: BuiltFunction, sandbox: Path, extra: dict[str, str]) -> dict[str, str]:
    """What Lambda sets, what the template sets, and the test's own overrides; nothing from this process."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "en_US.UTF-8",
        "TZ": ":UTC",
        "LAMBDA_TASK_ROOT": str(function.code_dir),
        "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12",
        "AWS_LAMBDA_FUNCTION_NAME": function.logical_id,
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(function.memory_mb),
        "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
        "AWS_REGION": "us-east-1",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "artifact",
        "AWS_SECRET_ACCESS_KEY": "artifact",
        "AWS_SESSION_TOKEN": "artifact",
        "_HANDLER": function.handler,
        # Tracing: Active gives the function these; Sampled=0 means the X-Ray SDK sends nothing.
        "_X_AMZN_TRACE_ID": "Root=1-67891233-abcdef012345678912345678;Parent=53995c3f42cd8ad8;Sampled=0",
        "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
        "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
        **function.environment,
        # /tmp stand-in: Lambda's only writable folder, where the browser functions unpack at cold start.
        "WEBCAPTURE_CACHE_DIR": str(sandbox / "tmp"),
        "TMPDIR": str(sandbox / "tmp"),
        **extra,
    }
    (sandbox / "tmp").mkdir(parents=True, exist_ok=True)
    return env


@dataclass(frozen=True)
class Invocation:
    result: dict[str, Any]
    output: str
    tmp_dir: Path

    @property
    def response(self) -> dict[str, Any]:
        if "error" in self.result or "response" not in self.result:
            raise AssertionError(f"the handler failed: {self.result.get('error')}\n--- output ---\n{self.output}")
        response: dict[str, Any] = self.result["response"]
        return response

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.response["body"])
        return body


def invoke(python: Path, function: BuiltFunction, opt: Path, event: dict[str, Any], sandbox: Path,
           extra_env: dict[str, str], timeout_s: float = 180) -> Invocation:
    """One cold start and invocation of the built handler in a fresh python3.12 process."""
    sandbox.mkdir(parents=True, exist_ok=True)
    event_path, result_path = sandbox / "event.json", sandbox / "result.json"
    event_path.write_text(json.dumps(event))
    completed = subprocess.run(
        # -B: /var/task and /opt are read-only on Lambda; and bytecode must not land in what sam deploys.
        [str(python), "-I", "-S", "-B", str(RUNNER), str(function.code_dir), str(opt), function.handler,
         str(event_path), str(result_path), function.logical_id, str(function.memory_mb),
         str(function.timeout_s)],
        env=lambda_environment(function, sandbox, extra_env), cwd=function.code_dir,
        capture_output=True, text=True, timeout=timeout_s, check=False,
    )
    output = f"exit {completed.returncode}\n{completed.stdout}\n{completed.stderr}"
    if not result_path.is_file():
        raise AssertionError(f"{function.logical_id} did not finish:\n{output}")
    return Invocation(json.loads(result_path.read_text()), output, sandbox / "tmp")


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS_DIR / f"{name}.json").read_text())
    return event


def with_key(event: dict[str, Any], key: str, context: dict[str, str]) -> dict[str, Any]:
    """The event with a real key in its Authorization header and the authorizer context it yields."""
    event = json.loads(json.dumps(event))
    if event.get("type") == "TOKEN":
        event["authorizationToken"] = f"Bearer {key}"
        return event
    for headers, value in ((event["headers"], f"Bearer {key}"), (event["multiValueHeaders"], [f"Bearer {key}"])):
        headers["Authorization"] = value
    event["requestContext"]["authorizer"] = {"principalId": context["userId"], **context}
    return event


def with_body(event: dict[str, Any], **changes: Any) -> dict[str, Any]:
    event = json.loads(json.dumps(event))
    event["body"] = json.dumps({**json.loads(event["body"]), **changes})
    return event


def allowed_roots(function: BuiltFunction, python: Path) -> list[Path]:
    """Where a built handler's modules may come from: its folder, its layers, the interpreter's stdlib."""
    stdlib = subprocess.run([str(python), "-I", "-S", "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    return [function.code_dir.resolve(), *(d.resolve() for d in function.layer_dirs), Path(stdlib).resolve()]


def foreign_modules(invocation: Invocation, roots: list[Path]) -> list[str]:
    foreign = []
    for name in invocation.result.get("modules", []):
        path = Path(name).resolve()
        if path != RUNNER.resolve() and not any(path.is_relative_to(root) for root in roots):
            foreign.append(name)
    return foreign


def tree_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())

