"""Bytecode, in the build, for every module a built function imports when Lambda loads it.

Lambda's /var/task and /opt are read-only, so Python cannot cache what it compiles: without .pyc files in
the package every cold start compiles each imported module again (the screenshot handler's import took
2.2 s that way here, 0.9 s with them). Compiling the whole of both layers would spend 24.5 MB of the
browser functions' 36 MB headroom under the 250 MB limit, mostly on modules never imported (openai's
thousands of type modules); so each handler is imported once under python3.12 with exactly Lambda's path,
and what it loaded from the build is compiled. The .pyc files use checked hashes: Python compares them
with the source on import, so a .pyc can never run stale code whatever the files' timestamps.

    python scripts/precompile_imports.py [--build-dir .aws-sam/build]
    python scripts/precompile_imports.py --measure [--runs 7]

Run by `make build` after `sam build`; resources a partial `sam build <Function>` left unbuilt are skipped.
--measure times each handler's import in a fresh python3.12 with the shipped bytecode and without it (an
empty -X pycache_prefix makes Python ignore it), in turns, and prints the medians as a Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from localapi.cfn_template import load_template

REPO_ROOT = Path(__file__).resolve().parent.parent

# Runs under python3.12 -I -S: imports the handler's module, then compiles what came from the build.
_PROBE = """
import importlib, json, py_compile, sys
CHECKED = py_compile.PycInvalidationMode.CHECKED_HASH
build, module, paths = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path[:0] = paths
importlib.import_module(module)
# Imported by the unpack's child Python, not by the handler: the decompressors of the BrowserLayer's .zst
# and .lz4 files.
for lazy in ("zstandard", "lz4.frame"):
    try:
        importlib.import_module(lazy)
    except ImportError:
        pass
compiled = 0
for loaded in list(sys.modules.values()):
    source = getattr(loaded, "__file__", None) or ""
    if source.endswith(".py") and source.startswith(build):
        py_compile.compile(source, doraise=True, invalidation_mode=CHECKED)
        compiled += 1
print(compiled)
"""


def lambda_path(build_dir: Path, code_uri: str, layer_uris: list[str]) -> list[str]:
    """Lambda's python3.12 import path for a function: its folder, then each layer's python folders."""
    paths = [str(build_dir / code_uri)]
    for uri in layer_uris:
        paths += [str(build_dir / uri / "python" / "lib" / "python3.12" / "site-packages"),
                  str(build_dir / uri / "python")]
    return paths


@dataclass(frozen=True)
class BuiltHandler:
    function: str
    module: str
    import_path: list[str]


def built_handlers(build_dir: Path) -> list[BuiltHandler]:
    """Every function of the built template whose folder and layers are all built."""
    template = load_template(build_dir / "template.yaml")
    resources: dict[str, Any] = template["Resources"]
    global_layers = template.get("Globals", {}).get("Function", {}).get("Layers", [])
    built = build_dir.resolve()
    handlers = []
    for name, resource in sorted(resources.items()):
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        layers = [*global_layers, *props.get("Layers", [])]
        uris = [props["CodeUri"]] + [resources[ref["Ref"]]["Properties"]["ContentUri"] for ref in layers]
        if not all((build_dir / uri).resolve().is_relative_to(built) for uri in uris):
            continue  # left unbuilt by `sam build <Function>`: nothing of ours to compile
        module = props.get("Handler", "app.lambda_handler").rpartition(".")[0]
        handlers.append(BuiltHandler(name, module, lambda_path(built, uris[0], uris[1:])))
    return handlers


def _python(python312: str, *args: str) -> subprocess.CompletedProcess[str]:
    # Importing needs no configuration but a region for boto3's clients; nothing else leaks in.
    # No warm start: the browser functions' handlers would otherwise start unpacking Chromium at import.
    env = {"PATH": os.environ.get("PATH", ""), "AWS_DEFAULT_REGION": "us-east-1", "LANG": "C.UTF-8",
           "WEBCAPTURE_WARM_START": "0"}
    command = [python312, "-I", "-S", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False)


def precompile(build_dir: Path, python312: str) -> dict[str, int]:
    compiled: dict[str, int] = {}
    for handler in built_handlers(build_dir):
        result = _python(python312, "-c", _PROBE, str(build_dir.resolve()), handler.module,
                         json.dumps(handler.import_path))
        if result.returncode != 0:
            raise SystemExit(f"{handler.function}: importing {handler.module} failed:\n{result.stderr}")
        compiled[handler.function] = int(result.stdout.strip())
    return compiled


_TIMED_IMPORT = """
import importlib, json, sys, time
sys.path[:0] = json.loads(sys.argv[2])
started = time.perf_counter()
importlib.import_module(sys.argv[1])
print(time.perf_counter() - started)
"""


def measure(build_dir: Path, python312: str, runs: int) -> str:
    rows = ["| function | import with the shipped bytecode | compiling every module | ratio |",
            "|---|---:|---:|---:|"]
    with tempfile.TemporaryDirectory() as empty:
        variants = {"shipped": ["-B"], "compiling": ["-B", "-X", f"pycache_prefix={empty}"]}
        for handler in built_handlers(build_dir):
            samples: dict[str, list[float]] = {name: [] for name in variants}
            for _ in range(runs):
                for name, flags in variants.items():  # in turns, so other load falls on both alike
                    result = _python(python312, *flags, "-c", _TIMED_IMPORT, handler.module,
                                     json.dumps(handler.import_path))
                    if result.returncode != 0:
                        raise SystemExit(f"{handler.function}: {result.stderr}")
                    samples[name].append(float(result.stdout))
            shipped, compiling = (statistics.median(samples[name]) for name in variants)
            rows.append(f"| {handler.function} | {shipped:.2f} s | {compiling:.2f} s "
                        f"| {compiling / shipped:.1f}x |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / ".aws-sam" / "build")
    parser.add_argument("--measure", action="store_true", help="time the imports instead of compiling")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    python312 = os.environ.get("WEBCAPTURE_PYTHON312") or "python3.12"
    if args.measure:
        started = time.perf_counter()
        print(measure(args.build_dir, python312, args.runs))
        print(f"\n({args.runs} runs each, {time.perf_counter() - started:.0f} s)")
        return 0
    for name, count in precompile(args.build_dir, python312).items():
        print(f"{name}: {count} imported modules compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
