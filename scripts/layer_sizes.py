"""Lambda's 250 MB budget, checked on what `sam build` made: every function plus all its layers, unzipped.

Lambda refuses a function whose code and layers together unpack to more than 262,144,000 bytes. This reads
the built template (.aws-sam/build/template.yaml), adds up the files of each function's folder and of each
layer it lists (Globals' layers first, as SAM merges them), prints the headroom, and exits 1 when a function
is over the limit, has more than Lambda's 5 layers, or was left unbuilt by a partial `sam build <Function>`
(`make deploy` runs this first).

    python scripts/layer_sizes.py [--build-dir .aws-sam/build] [--json]
    python scripts/layer_sizes.py --unpack [--write-docs docs/benchmarks.md]

--unpack also times what a browser function's cold start unpacks from the built BrowserLayer (the Chromium
pack and Playwright's Node, each into a fresh folder, median of 3) and reports the bytes it writes to /tmp,
the figure EphemeralStorage in template.yaml is sized from. --write-docs puts both tables into the
"Lambda package sizes and cold start" section of the given Markdown file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # run as `python scripts/layer_sizes.py`: the repository's packages

from localapi.cfn_template import load_template  # noqa: E402
from scripts.benchmark_docs import markdown_table, write_block  # noqa: E402

LIMIT_BYTES = 262_144_000  # Lambda: function + layers, unzipped
MAX_LAYERS = 5
DEFAULT_BUILD = REPO_ROOT / ".aws-sam" / "build"
COLD_START_LOG = REPO_ROOT / ".aws-sam" / "artifact-cold-starts.jsonl"  # written by tests/artifact
SECTION = "## Lambda package sizes and cold start"
MB = 1_000_000


@dataclass(frozen=True)
class FunctionSize:
    function: str
    code_bytes: int
    layers: dict[str, int]

    @property
    def total_bytes(self) -> int:
        return self.code_bytes + sum(self.layers.values())

    @property
    def headroom_bytes(self) -> int:
        return LIMIT_BYTES - self.total_bytes


@dataclass(frozen=True)
class UnpackTiming:
    what: str
    packed_bytes: int
    unpacked_bytes: int
    median_s: float


def tree_bytes(path: Path) -> int:
    # Unzipped size is what Lambda counts: the sum of the files' sizes.
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def unbuilt(build_dir: Path) -> list[str]:
    """Resources the built template still points at their sources: after `sam build <OneFunction>`, sam
    leaves the others so, and `sam deploy` would then ship e.g. layers/browser (a Makefile) as the layer."""
    resources: dict[str, Any] = load_template(build_dir / "template.yaml")["Resources"]
    found = []
    for name, resource in sorted(resources.items()):
        props = resource.get("Properties", {})
        uri = props.get("CodeUri") or props.get("ContentUri")
        serverless = resource["Type"].startswith("AWS::Serverless::") and isinstance(uri, str)
        if serverless and not (build_dir / uri).resolve().is_relative_to(build_dir.resolve()):
            found.append(f"{name} is not built (the template points at {uri}): run a full `make build`")
    return found


def measure(build_dir: Path) -> list[FunctionSize]:
    template = load_template(build_dir / "template.yaml")
    resources: dict[str, Any] = template["Resources"]
    global_layers = template.get("Globals", {}).get("Function", {}).get("Layers", [])
    layer_bytes: dict[str, int] = {}
    sizes = []
    for name, resource in sorted(resources.items()):
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        props = resource["Properties"]
        layers: dict[str, int] = {}
        for ref in [*global_layers, *props.get("Layers", [])]:
            layer = ref["Ref"]
            if layer not in layer_bytes:
                layer_bytes[layer] = tree_bytes(build_dir / resources[layer]["Properties"]["ContentUri"])
            layers[layer] = layer_bytes[layer]
        sizes.append(FunctionSize(name, tree_bytes(build_dir / props["CodeUri"]), layers))
    return sizes


def problems(sizes: list[FunctionSize]) -> list[str]:
    found = []
    for size in sizes:
        if size.headroom_bytes < 0:
            found.append(f"{size.function}: {size.total_bytes:,} bytes unzipped, over {LIMIT_BYTES:,}")
        if len(size.layers) > MAX_LAYERS:
            found.append(f"{size.function}: {len(size.layers)} layers, Lambda allows {MAX_LAYERS}")
    return found


def sizes_table(sizes: list[FunctionSize]) -> str:
    return markdown_table("| function | code | layers | total unzipped | headroom to 250 MB |",
                          "|---|---:|---|---:|---:|", [size_row(size) for size in sizes])


def size_row(size: FunctionSize) -> str:
    layers = " + ".join(f"{name} {value / MB:.1f} MB" for name, value in size.layers.items())
    return (f"| {size.function} | {size.code_bytes / 1000:.1f} kB | {layers} "
            f"| {size.total_bytes / MB:.1f} MB "
            f"| {size.headroom_bytes / MB:.1f} MB ({100 * size.headroom_bytes / LIMIT_BYTES:.0f}%) |")


# ai-extract's Node, the alternative to NodeLayer's: timed, but not in a browser function's total.
_COMPACT_NODE = "Playwright's Node (node.zst, NodeCompactLayer: ai-extract)"


def time_unpacks(build_dir: Path, runs: int = 3) -> list[UnpackTiming]:
    """What a browser function's cold start unpacks, timed from the built layer into fresh folders."""
    from webcapture.browser.launch import chromium_pack, node_runtime

    pack = build_dir / "BrowserLayer" / "chromium"
    driver = Path("python") / "playwright" / "driver"
    node = build_dir / "NodeLayer" / driver / "node.lz4"
    compact = build_dir / "NodeCompactLayer" / driver / "node.zst"
    jobs: dict[str, tuple[Path, Callable[[Path], object]]] = {
        "Chromium pack (chromium.lz4 + 3 tarballs)": (pack, lambda cache: chromium_pack.unpack(pack, cache)),
        "Playwright's Node (node.lz4)": (node, lambda cache: node_runtime.unpack_node(node, cache)),
        _COMPACT_NODE: (compact, lambda cache: node_runtime.unpack_node(compact, cache)),
    }
    timings = []
    for what, (source, job) in jobs.items():
        seconds, written = [], 0
        for _ in range(runs):
            with tempfile.TemporaryDirectory(prefix="webcapture-unpack-") as cache:
                started = time.perf_counter()
                job(Path(cache))
                seconds.append(time.perf_counter() - started)
                written = tree_bytes(Path(cache))
        packed = tree_bytes(source) - (tree_bytes(source / "fonts-extra") if source.is_dir() else 0)
        timings.append(UnpackTiming(what, packed, written, statistics.median(seconds)))
    return timings


def unpack_table(timings: list[UnpackTiming]) -> str:
    rows = [f"| {t.what} | {t.packed_bytes / MB:.1f} MB | {t.unpacked_bytes / MB:.1f} MB "
            f"| {t.median_s:.2f} s |" for t in timings]
    # A function unpacks Chromium and one Node: the total is the five browser functions' (NodeLayer's).
    counted = [t for t in timings if t.what != _COMPACT_NODE]
    total_s = sum(t.median_s for t in counted)
    total_b = sum(t.unpacked_bytes for t in counted)
    rows.append(f"| **total** (Chromium and node.lz4) | | **{total_b / MB:.1f} MB** | **{total_s:.2f} s** |")
    return markdown_table("| unpacked at cold start | packed | unpacked to /tmp | time (median of 3) |",
                          "|---|---:|---:|---:|", rows)


def cold_starts_table(log: Path) -> str | None:
    """The artefact tests' invocations (tests/artifact writes one JSON line each), first per function."""
    if not log.is_file():
        return None
    runs: dict[str, dict[str, Any]] = {}
    for line in log.read_text().splitlines():
        run = json.loads(line)
        if run.get("invoke_s") is not None:
            runs.setdefault(run["function"], run)
    rows = [f"| {name} | {run['init_s']:.2f} s | {run['invoke_s']:.2f} s | {run['tmp_bytes'] / MB:.1f} MB |"
            for name, run in sorted(runs.items())]
    return markdown_table(
        "| function (fresh python3.12, empty /tmp) | import (init) | first invocation | /tmp afterwards |",
        "|---|---:|---:|---:|", rows)


def docs_section(sizes: list[FunctionSize], timings: list[UnpackTiming]) -> str:
    cpu = platform.processor() or platform.machine()
    machine = f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"
    return "\n".join([
        SECTION,
        "",
        "`python scripts/layer_sizes.py --unpack --write-docs docs/benchmarks.md` on `.aws-sam/build` (from "
        "`make build`); the size check alone runs in `make test`. Lambda's limit is 262,144,000 bytes for a "
        "function and all its layers, unzipped.",
        "",
        sizes_table(sizes),
        "",
        f"Cold-start unpacking from the built BrowserLayer ({machine}; a Lambda with 2048 MB gets about 1.2 "
        "vCPU). It happens once per container, at init (webcapture.warm_start: Chromium and Node at once, "
        "overlapping the imports); later requests of a warm container reuse /tmp. Timed here one after the "
        "other.",
        "",
        unpack_table(timings),
        "",
        "Both ship recompressed (scripts/pack_zstd.py): Chromium's binary to lz4 (HC 12), which inflates in "
        "about a quarter of brotli's CPU time, the rest to zstd (level 19, 128 MB window), about twice as "
        "fast as brotli (docs/benchmarks.md, \"Unpacking\"). Playwright's "
        "Node is 150 MB in the wheel, 117 MB stripped; shipped as is it would put the browser functions at "
        "about 342 MB, over the limit. "
        "Unpacked Chromium and Node, the browser's scratch folder (Chromium's shared memory lives there) "
        "and room for one interrupted unpack are what EphemeralStorage (1024 MB) in template.yaml is "
        "sized for.",
        *cold_start_section(),
    ])


def cold_start_section() -> list[str]:
    table = cold_starts_table(COLD_START_LOG)
    if table is None:
        return []
    return [
        "",
        "Each built handler as `make test`'s artefact tests run it (tests/artifact): a fresh python3.12 "
        "process with only the function and its layers on its path, on this machine under the test "
        "suite's load. The browser functions start unpacking Chromium and Node and launching the browser "
        "at import (webcapture.warm_start), in the background: what of it the import does not cover, the "
        "first invocation (one capture of a loopback page) waits for; the others answer against moto's "
        "server.",
        "",
        table,
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD)
    parser.add_argument("--json", action="store_true", help="print the sizes as JSON")
    parser.add_argument("--unpack", action="store_true", help="also time the cold-start unpacking")
    parser.add_argument("--write-docs", type=Path, help="write the tables into this Markdown file")
    args = parser.parse_args(argv)
    if not (args.build_dir / "template.yaml").is_file():
        print(f"{args.build_dir} has no built template: run `make build` first", file=sys.stderr)
        return 2
    sizes = measure(args.build_dir)
    timings = time_unpacks(args.build_dir) if args.unpack or args.write_docs else []
    if args.json:
        print(json.dumps({
            "limit_bytes": LIMIT_BYTES,
            "functions": [{**asdict(s), "total_bytes": s.total_bytes, "headroom_bytes": s.headroom_bytes}
                          for s in sizes],
            "unpack": [asdict(t) for t in timings],
        }, indent=2))
    else:
        print(sizes_table(sizes))
        if timings:
            print()
            print(unpack_table(timings))
    if args.write_docs:
        write_block("package-sizes", docs_section(sizes, timings), args.write_docs)
    found = problems(sizes) + unbuilt(args.build_dir)
    for problem in found:
        print(f"NOT DEPLOYABLE: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
