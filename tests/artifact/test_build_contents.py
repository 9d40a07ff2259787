"""What `sam build` put in the layers: the right files in the right places, for Lambda's python3.12 on
x86_64, within the 250 MB budget, and built from requirements.lock's versions, the ones the rest of the suite tests."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from packaging.utils import canonicalize_name

from scripts.drop_shared_duplicates import duplicates
from tests.artifact.harness import REPO_ROOT, BuiltFunction
from tests.support.locked_versions import locked
from webcapture.browser.launch.node_runtime import COMPILE_CACHE_DIR, compile_cache_env, unpack_node

# Recompressed from the fetched pack's brotli by scripts/pack_zstd.py: the binary to lz4, the fastest to
# inflate at a cold start, the tarballs to zstd.
# The functions that ask the AI model (ai-extract, and the crawl's json format): they carry openai.
MODEL_CALLERS = {"AiExtractFunction", "CrawlFunction"}
PACK_FILES = ("PACK", "chromium.lz4", "al2023.tar.zst", "fonts.tar.zst", "swiftshader.tar.zst")


def test_browser_layer_holds_the_chromium_pack_compressed(build_dir: Path) -> None:
    pack = build_dir / "BrowserLayer" / "chromium"
    for name in PACK_FILES:
        assert (pack / name).is_file(), f"/opt/chromium/{name} missing"
    assert sorted(p.name for p in (pack / "fonts-extra").iterdir()) == [
        "NotoColorEmoji.ttf", "NotoSansCJK-Regular.ttc"]
    assert not (pack / "chromium").exists(), "the layer must ship the browser compressed"
    assert not list(pack.glob("*.br")), "the brotli files are replaced by their .zst, not shipped twice"
    assert not (pack / "chromium.zst").exists(), "the binary ships once, as lz4"


def test_browser_layer_was_built_from_the_current_pin(build_dir: Path) -> None:
    # sam's build cache keys the BrowserLayer on layers/browser only; the pin lives in
    # scripts/fetch_chromium.sh, whose fetched pack (`make install`) carries it in PACK.
    fetched = REPO_ROOT / ".cache" / "chromium-pack" / "PACK"
    built = build_dir / "BrowserLayer" / "chromium" / "PACK"
    if fetched.is_file():
        assert built.read_text() == fetched.read_text(), (
            "the built BrowserLayer has another Chromium pin than scripts/fetch_chromium.sh: "
            "run `.venv/bin/sam build --no-cached`")


def test_playwright_ships_its_node_packed_in_layers_of_its_own(
    build_dir: Path, functions: dict[str, BuiltFunction]
) -> None:
    driver = build_dir / "BrowserLayer" / "python" / "playwright" / "driver"
    assert (driver / "package" / "cli.js").is_file()
    assert not list(driver.glob("node*")), "the Node ships in NodeLayer / NodeCompactLayer, not here"
    # Each layer holds the one file Lambda merges into the BrowserLayer's driver folder.
    for layer, packed in (("NodeLayer", "node.lz4"), ("NodeCompactLayer", "node.zst")):
        files = [path for path in (build_dir / layer).rglob("*") if path.is_file()]
        assert files == [build_dir / layer / "python" / "playwright" / "driver" / packed], layer
    # Every browser function has exactly one Node, after the BrowserLayer: lz4, but zstd for the functions
    # that carry the openai client.
    for name, function in functions.items():
        if "BrowserLayer" in function.layers:
            node = "NodeCompactLayer" if name in MODEL_CALLERS else "NodeLayer"
            assert function.layers[function.layers.index("BrowserLayer") + 1:] == (node,), name
        else:
            assert not {"NodeLayer", "NodeCompactLayer"} & set(function.layers), name
    assert not (build_dir / "BrowserLayer" / "python" / "bin").exists()
    # Development tools' files (typings, trace viewer and recorder UIs), not shipped: test_built_handlers
    # screenshots with what is left.
    assert not (driver / "package" / "types").exists() and not (driver / "package" / "lib" / "vite").exists()


def test_the_built_driver_starts_from_the_shipped_compile_cache(build_dir: Path, tmp_path: Path) -> None:
    # Node's compile cache (scripts/node_compile_cache.py), read-only on Lambda, readable by any user, and
    # still a hit for the shipped Node from where the layer lies (its entries are keyed by relative paths).
    driver = build_dir / "BrowserLayer" / "python" / "playwright" / "driver"
    cache = driver / COMPILE_CACHE_DIR
    entries = [entry for entry in cache.rglob("*") if entry.is_file()]
    assert entries, f"{cache} is missing or empty"
    assert all(entry.stat().st_mode & 0o444 == 0o444 for entry in entries)
    node = unpack_node(build_dir / "NodeLayer" / "python" / "playwright" / "driver" / "node.lz4", tmp_path)
    run = subprocess.run(
        [str(node), str(driver / "package" / "cli.js"), "--version"],
        env={"PATH": "/usr/bin:/bin", "NODE_DEBUG_NATIVE": "COMPILE_CACHE", **compile_cache_env(cache)},
        capture_output=True, text=True, check=True, timeout=60,
    )
    accepted = re.findall(r"V8 code cache for \S+ (\S+) was accepted", run.stderr)
    assert any(path.endswith("coreBundle.js") for path in accepted), run.stderr[-3000:]


def test_the_decompressor_ships_trimmed(build_dir: Path) -> None:
    # zstandard's wheel is 23 MB: a cffi backend for PyPy and a C backend with its debug info. CPython
    # needs only the C backend, stripped (~1 MB).
    package = build_dir / "BrowserLayer" / "python" / "zstandard"
    assert [p.name.split(".")[0] for p in package.glob("*.so")] == ["backend_c"]
    assert sum(p.stat().st_size for p in package.rglob("*") if p.is_file()) < 2_000_000
    # lz4's wheel (5.7 MB): the frame module, stripped, is what inflates chromium.lz4.
    lz4 = build_dir / "BrowserLayer" / "python" / "lz4"
    assert (lz4 / "frame" / "__init__.py").is_file() and not (lz4 / "block").exists()
    assert sum(p.stat().st_size for p in lz4.rglob("*") if p.is_file()) < 1_000_000


def test_every_built_package_holds_exactly_the_locked_versions(
    build_dir: Path, functions: dict[str, BuiltFunction]
) -> None:
    lock = locked()
    folders = [function.code_dir for function in functions.values()]
    folders += [layer / "python" for layer in build_dir.iterdir() if (layer / "python").is_dir()]
    shipped = 0
    for folder in folders:
        for dist_info in folder.glob("*.dist-info"):
            name, version = dist_info.name.removesuffix(".dist-info").rsplit("-", 1)
            assert lock.get(canonicalize_name(name)) == version, f"{folder}: {name} {version} is not the locked one"
            shipped += 1
    assert shipped > 40


def test_main_content_library_ships_trimmed(build_dir: Path) -> None:
    python = build_dir / "BrowserLayer" / "python"
    assert (python / f"trafilatura-{locked()['trafilatura']}.dist-info").is_dir()
    # Trimmed as its Makefile says; the built handlers' run (test_built_handlers) extracts with what is left.
    assert not (python / "babel" / "locale-data").exists()
    assert not (python / "dateparser").exists()


def test_the_layers_share_no_package(build_dir: Path) -> None:
    """Both layers land in /opt/python: a package in both would be one version's files over the other's."""
    shared = {path.name for path in (build_dir / "SharedLayer" / "python").iterdir()}
    browser = {path.name for path in (build_dir / "BrowserLayer" / "python").iterdir()}
    assert not (shared & browser) - {"__pycache__"}


def test_shared_layer_has_the_package_and_its_dependencies(build_dir: Path) -> None:
    python = build_dir / "SharedLayer" / "python"
    assert (python / "webcapture" / "__init__.py").is_file()
    for package in ("boto3", "botocore", "aws_lambda_powertools", "pydantic", "pydantic_core", "jsonschema"):
        assert (python / package).exists(), f"{package} missing from the shared layer"
    # Every function carries this layer: what only the authorizer (session tokens) or only development (the
    # fetched .br files) needs stays out of it, for the browser functions' 250 MB.
    for package in ("jwt", "cryptography", "cffi", "brotli.py", "openai", "httpx2", "jiter"):
        assert not (python / package).exists(), f"{package} belongs in one function's own package"


def test_only_the_authorizer_and_the_mcp_function_carry_pyjwt_and_cryptography(
        functions: dict[str, BuiltFunction]) -> None:
    # The MCP SDK requires pyjwt[crypto] (its OAuth side) whether or not a server uses it.
    for name, function in functions.items():
        has_jwt = (function.code_dir / "jwt").is_dir() and (function.code_dir / "cryptography").is_dir()
        assert has_jwt == (name in {"AuthorizerFunction", "McpFunction"}), name


def test_only_the_functions_that_call_a_model_carry_the_openai_client(
    functions: dict[str, BuiltFunction],
) -> None:
    for name, function in functions.items():
        assert (function.code_dir / "openai").is_dir() == (name in MODEL_CALLERS), name


def test_no_function_shadows_the_shared_layers_packages(
    build_dir: Path, functions: dict[str, BuiltFunction]
) -> None:
    # A function's folder comes first on Lambda's sys.path: a second pydantic there (openai's pip brings
    # one) would replace the SharedLayer's tested release (scripts/drop_shared_duplicates.py removes them).
    shared = build_dir / "SharedLayer" / "python"
    for name, function in functions.items():
        assert duplicates(function.code_dir, shared) == [], name
    assert not (functions["AiExtractFunction"].code_dir / "pydantic").exists()


def test_native_code_is_for_lambdas_python(build_dir: Path) -> None:
    """Every extension module is CPython 3.12 (or the stable ABI) on x86_64 Linux: a cp311 .so built for
    this machine's Python would import here and fail on Lambda."""
    wrong = []
    for layer in ("SharedLayer", "BrowserLayer", "AuthorizerFunction"):  # the authorizer: cryptography's
        for so in (build_dir / layer).rglob("*.so"):
            name = so.name
            if ".cpython-" in name and ".cpython-312-x86_64-linux-gnu.so" not in name:
                wrong.append(str(so))
            if "-darwin" in name or "aarch64" in name:
                wrong.append(str(so))
    assert not wrong, wrong
    wheels = {}
    for folder in ("SharedLayer/python", "BrowserLayer/python", "AuthorizerFunction"):
        for wheel_file in (build_dir / folder).glob("*.dist-info/WHEEL"):
            wheels[wheel_file.parent.name] = [line.split(":", 1)[1].strip()
                                              for line in wheel_file.read_text().splitlines()
                                              if line.startswith("Tag:")]
    assert len(wheels) > 10
    # A wheel may carry several tags (py2.py3); one that fits is enough.
    unfit = {name: tags for name, tags in wheels.items() if not any(map(wheel_tag_fits_lambda, tags))}
    assert not unfit, f"wheels that do not run on Lambda's python3.12 x86_64: {unfit}"


def wheel_tag_fits_lambda(tag: str) -> bool:
    """python3.12 on Amazon Linux 2023 (glibc 2.34), x86_64."""
    interpreter, abi, platforms = tag.split("-")
    if abi == "abi3":
        abi_ok = interpreter.startswith("cp3") and int(interpreter[3:]) <= 12
    else:
        abi_ok = abi in ("cp312", "none") and interpreter in ("cp312", "py3", "py312")
    return abi_ok and any(map(platform_fits_lambda, platforms.split(".")))  # a compressed tag set: any one


def platform_fits_lambda(platform: str) -> bool:
    glibc = re.match(r"manylinux_2_(\d+)_x86_64$", platform)
    return platform == "any" or platform in ("manylinux1_x86_64", "manylinux2010_x86_64",
                                             "manylinux2014_x86_64") or bool(glibc and int(glibc.group(1)) <= 34)


def test_size_script_passes_on_the_build(build_dir: Path) -> None:
    completed = subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "layer_sizes.py"),
                                "--build-dir", str(build_dir), "--json"],
                               capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    report = json.loads(completed.stdout)
    assert {f["function"] for f in report["functions"]} >= {"ScreenshotFunction", "LinksFunction",
                                                            "AiExtractFunction"}
    for function in report["functions"]:
        assert 0 < function["headroom_bytes"] < report["limit_bytes"]


# Imports the handler with Lambda's path, then reports each module it loaded from the build whose bytecode
# Python would not use as it is (missing, not a checked-hash .pyc, or compiled from other source).
_BYTECODE_PROBE = """
import importlib, importlib.util, json, sys
build, module, paths = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path[:0] = paths
importlib.import_module(module)
unusable, checked = [], 0
for loaded in list(sys.modules.values()):
    source = getattr(loaded, "__file__", None) or ""
    if not (source.endswith(".py") and source.startswith(build)):
        continue
    checked += 1
    try:
        pyc = open(importlib.util.cache_from_source(source), "rb").read()
    except OSError:
        unusable.append(source + ": no .pyc")
        continue
    flags = int.from_bytes(pyc[4:8], "little")
    if pyc[:4] != importlib.util.MAGIC_NUMBER or flags != 0b11:
        unusable.append(source + ": not a checked-hash .pyc for this Python")
    elif pyc[8:16] != importlib.util.source_hash(open(source, "rb").read()):
        unusable.append(source + ": compiled from other source")
print(json.dumps({"checked": checked, "unusable": unusable}))
"""


def test_every_module_a_handler_imports_ships_its_bytecode(
    build_dir: Path, functions: dict[str, BuiltFunction], python312: Path
) -> None:
    # Lambda cannot write __pycache__ (read-only /opt and /var/task): without these, every cold start
    # compiles every module again (scripts/precompile_imports.py, run by `make build`).
    build = str(build_dir.resolve())
    for name, function in functions.items():
        paths = [str(function.code_dir.resolve())]
        for layer in function.layer_dirs:
            paths += [str(layer.resolve() / "python" / "lib" / "python3.12" / "site-packages"),
                      str(layer.resolve() / "python")]
        probe = subprocess.run(
            [str(python312), "-I", "-S", "-B", "-c", _BYTECODE_PROBE, build,
             function.handler.rpartition(".")[0], json.dumps(paths)],
            capture_output=True, text=True, check=False,
            env={"PATH": "/usr/bin:/bin", "AWS_DEFAULT_REGION": "us-east-1", "WEBCAPTURE_WARM_START": "0"},
        )
        assert probe.returncode == 0, f"{name}: {probe.stderr[-2000:]}"
        report = json.loads(probe.stdout)
        assert report["checked"] > 100, name  # the handler really loaded its dependencies from the build
        assert report["unusable"] == [], f"{name}: {report['unusable'][:5]}"


def test_browser_layer_ships_the_page_filters_as_fetched(build_dir: Path) -> None:
    filters = build_dir / "BrowserLayer" / "page-filters"
    for name in ("FILTERS", "adblock-engine.zst", "autoconsent.playwright.js", "autoconsent-rules.json"):
        assert (filters / name).is_file(), f"/opt/page-filters/{name} missing"
    fetched = REPO_ROOT / ".cache" / "page-filters" / "FILTERS"
    if fetched.is_file():
        assert (filters / "FILTERS").read_text() == fetched.read_text(), (
            "the built BrowserLayer has other page filters than scripts/fetch_page_filters.sh pins: "
            "run `.venv/bin/sam build --no-cached`")


def test_the_compiled_filter_engine_loads_in_lambdas_python(build_dir: Path, python312: Path) -> None:
    """The engine serialized at build time loads with the layer's own adblock under python3.12, and blocks
    what EasyList blocks; adblock's library ships stripped."""
    layer = build_dir / "BrowserLayer"
    library = next((layer / "python" / "adblock").glob("adblock*.so"))
    assert library.stat().st_size < 10_000_000, "adblock's library ships with its 48 MB of debug symbols"
    assert not (layer / "page-filters" / "adblock-engine.br").exists(), "shipped once, as zstd"
    code = (
        "import sys, adblock, zstandard; e = adblock.Engine(adblock.FilterSet());"
        "e.deserialize(zstandard.ZstdDecompressor().decompress("
        f"open({str(layer / 'page-filters' / 'adblock-engine.zst')!r}, 'rb').read()));"
        "print(e.check_network_urls('https://securepubads.g.doubleclick.net/tag/js/gpt.js',"
        " 'https://example.org/', 'script').matched)"
    )
    # The BrowserLayer alone: its zstandard inflates the engine (the SharedLayer has no brotli).
    completed = subprocess.run([str(python312), "-I", "-S", "-c", f"import sys; sys.path[:0] = "
                                f"[{str(layer / 'python')!r}]; " + code],
                               capture_output=True, text=True, check=False, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "True"


def test_botocore_keeps_exactly_the_service_models_the_code_calls(build_dir: Path) -> None:
    """make build drops the other 430 service models (scripts/trim_botocore.py): what remains is the kept
    list, and every service a function's code calls (the IAM analysis) is in it."""
    from scripts.trim_botocore import KEPT_SERVICES
    from tests.artifact.test_iam_policies import FUNCTIONS, needed

    data = build_dir / "SharedLayer" / "python" / "botocore" / "data"
    assert {entry.name for entry in data.iterdir() if entry.is_dir()} == KEPT_SERVICES
    assert (data / "endpoints.json").is_file() and (data / "_retry.json").is_file()
    # iam:PassRole is a permission CreateSchedule needs, not a call the code makes: no model for it.
    called = {action.split(":")[0] for function in FUNCTIONS for action, _ in needed(function)
              if action != "iam:PassRole"}
    assert called and called <= KEPT_SERVICES, called - KEPT_SERVICES
