"""Playwright's Node.js: as installed, or unpacked once per container from a node layer's node.lz4 / .zst.

Playwright's Python package drives the browser through a Node process (driver/node + driver/package). The
wheel's Node is 150 MB, which does not fit Lambda's 250 MB (function + layers, unzipped) beside the Chromium
pack, so it ships stripped and packed in a layer of its own, which Lambda merges into the BrowserLayer's
driver folder: NodeLayer's driver/node.lz4 (the fastest to inflate), or NodeCompactLayer's driver/node.zst
for ai-extract (scripts/pack_playwright_node.py; a brotli node.br is read too). Here it is inflated into the
cache dir (/tmp on
Lambda) beside the unpacked Chromium, once per container, and Playwright is pointed at it with
PLAYWRIGHT_NODEJS_PATH, which its driver lookup (playwright._impl._driver.compute_driver_executable)
honours before its bundled binary.

Where the wheel's own driver/node is present (a dev venv, CI), nothing happens.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path

from webcapture.browser.launch.unpack_once import InflateJob, inflate, packed_file, unpack_once
from webcapture.settings import Settings, get_settings

log = logging.getLogger(__name__)

NODE_PATH_ENV = "PLAYWRIGHT_NODEJS_PATH"
# Node's compile cache for the driver's JavaScript, made at build time beside driver/package
# (scripts/node_compile_cache.py): the driver starts in about 0.35 s instead of 0.5-0.65 s.
COMPILE_CACHE_DIR = "compile-cache"


class NodeUnavailable(RuntimeError):
    """Playwright has neither its bundled Node nor a packed one to unpack."""


def ensure_playwright_node(settings: Settings | None = None) -> Path | None:
    """Make sure Playwright's driver has a Node to run; call before starting Playwright.

    Returns the unpacked Node when this set PLAYWRIGHT_NODEJS_PATH, None when Playwright's own (or an
    explicitly configured) Node is used. Cheap after the first call in a container.
    """
    configured = os.environ.get(NODE_PATH_ENV)
    # A configured Node that is there wins; one that is gone (say, a /tmp emptied under a warm process)
    # would only make the driver fail to start, so it is unpacked again.
    if configured and Path(configured).is_file():
        return None
    driver = playwright_driver_dir()
    if (driver / "node").is_file():
        return None
    packed = packed_node()
    if packed is None:
        raise NodeUnavailable(f"Playwright at {driver} has neither node nor node.lz4 / node.zst")
    node = unpack_node(packed, Path((settings or get_settings()).cache_dir))
    cache = driver / COMPILE_CACHE_DIR
    if cache.is_dir():
        os.environ.update(compile_cache_env(cache))
    os.environ[NODE_PATH_ENV] = str(node)
    return node


def compile_cache_env(cache: Path) -> dict[str, str]:
    """The driver's environment for reading (and, where it can write, filling) the compile cache `cache`.

    Portable: entries are keyed by paths relative to the cache, so the cache made at build time hits wherever
    the layer is mounted. On Lambda /opt is read-only: Node reads the cache and skips writing, nothing fails.
    """
    return {"NODE_COMPILE_CACHE": str(cache), "NODE_COMPILE_CACHE_PORTABLE": "1"}


def playwright_driver_dir() -> Path:
    # Imported here: only the browser functions have Playwright (it lives in the BrowserLayer).
    import playwright

    return Path(playwright.__file__).resolve().parent / "driver"


def packed_node() -> Path | None:
    """The node layer's node.lz4 / node.zst (or a development node.br), if Node ships packed.

    Looked for in the driver folder as imported first: the node layer's file is merged into it where the
    layers are laid out (/opt), while the package's own files may be symlinks into the BrowserLayer alone
    (the artefact tests' /opt); on Lambda both are the same folder."""
    import playwright

    for driver in (Path(playwright.__file__).absolute().parent / "driver", playwright_driver_dir()):
        if (packed := packed_file(driver, "node")) is not None:
            return packed
    return None


def unpack_node(packed: Path, cache_dir: Path) -> Path:
    """Inflate packed into <cache_dir>/playwright-node-<key>/node once; later calls and processes reuse it."""
    target = cache_dir / f"playwright-node-{_packed_key(packed)}"
    node = target / "node"
    started = time.perf_counter()
    if unpack_once(
        target,
        lambda where: (where / "node").is_file(),
        lambda staging: _inflate(packed, staging),
        family="playwright-node-",
    ):
        log.info("unpacked Playwright's Node to %s in %.2f s", node, time.perf_counter() - started)
    return node


def _packed_key(packed: Path) -> str:
    # Playwright's version and the file's name and size identify a build cheaply; hashing 34 MB on every
    # cold start would not be cheap.
    from playwright._repo_version import version

    digest = hashlib.sha256(f"{version}:{packed.name}:{packed.stat().st_size}".encode())
    return digest.hexdigest()[:12]


def _inflate(packed: Path, staging: Path) -> None:
    if inflate([InflateJob(packed, staging / "node")]):
        raise NodeUnavailable(f"{packed} is truncated")
    (staging / "node").chmod(0o755)
