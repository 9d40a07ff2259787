"""Ship Node's compile cache for Playwright's driver in the BrowserLayer: driver/compile-cache.

Why: at a cold start the driver (a Node process running driver/package's 10 MB of bundled JavaScript) takes
0.5-0.65 s to start, most of it compiling that JavaScript. Node keeps V8's compiled code in a folder named by
NODE_COMPILE_CACHE; with NODE_COMPILE_CACHE_PORTABLE=1 its entries are keyed by paths relative to that folder,
so a cache made here, beside driver/package, still hits once the layer is mounted at /opt. Node only reads it
there (/opt is read-only; an entry it cannot write is skipped, nothing fails):
webcapture.browser.launch.node_runtime points the driver at it. About 1.3 MB.

How: the layer's own Python package (python3.12, the layer's wheels) drives the layer's own Node through
what a first request does (launch the pinned Chromium, open a page, screenshot), then stops; Node writes
the code it compiled, lazily compiled functions included, when it exits. Run by layers/browser/Makefile
after pip installed Playwright and before its Node is packed.

Usage: node_compile_cache.py <layer python dir>     (the dev venv's Python, for webcapture's Chromium pack)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "layers" / "shared"))

from webcapture.browser.launch.chromium_pack import resolve_chromium  # noqa: E402
from webcapture.browser.launch.launch_flags import LAMBDA_FLAGS  # noqa: E402
from webcapture.browser.launch.node_runtime import COMPILE_CACHE_DIR, compile_cache_env  # noqa: E402

# Runs in python3.12 with only the layer's packages on its path.
_WORKLOAD = """
import json, sys
sys.path.insert(0, sys.argv[1])
executable, args, env = sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
from playwright.sync_api import sync_playwright
with sync_playwright() as driver:
    browser = driver.chromium.launch(executable_path=executable, args=args, env=env)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_content("<h1>compile cache</h1><a href='#x'>link</a>")
    page.evaluate("document.title")
    assert page.screenshot(full_page=True)[:4] == b"\\x89PNG"
    context.close()
    browser.close()
"""


def build(python_dir: Path) -> Path:
    driver = python_dir / "playwright" / "driver"
    cache = driver / COMPILE_CACHE_DIR
    if not (driver / "node").is_file():
        raise SystemExit(f"{driver}/node not found: run this before scripts/pack_playwright_node.py")
    python312 = shutil.which("python3.12")
    if python312 is None:
        raise SystemExit("needs python3.12 on PATH (the layer's wheels are cp312), as `make build` does")
    shutil.rmtree(cache, ignore_errors=True)
    install = resolve_chromium()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "PLAYWRIGHT_NODEJS_PATH": str(driver / "node"),
        **compile_cache_env(cache),
    }
    subprocess.run(
        [python312, "-I", "-S", "-B", "-c", _WORKLOAD, str(python_dir), str(install.executable),
         json.dumps(list(LAMBDA_FLAGS)), json.dumps({**install.env, "HOME": env["HOME"]})],
        env=env, check=True, timeout=300,
    )
    if not any(cache.rglob("*")):
        raise SystemExit(f"Node wrote no compile cache into {cache}")
    # Node writes its entries 0600; Lambda runs the function as another user than the layer's files' owner.
    for entry in [cache, *cache.rglob("*")]:
        entry.chmod(0o755 if entry.is_dir() else 0o644)
    return cache


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cache = build(Path(argv[1]))
    size = sum(entry.stat().st_size for entry in cache.rglob("*") if entry.is_file())
    print(f"Node compile cache for Playwright's driver: {cache} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
