"""The page-filters folder (scripts/fetch_page_filters.sh) and the ad-blocking engine compiled into it.

The engine is Brave's adblock-rust (the `adblock` wheel), compiled at build time from EasyList, EasyPrivacy
and uBlock Origin's lists, serialized and compressed: loading it costs one decompression and one
deserialization (about 0.3 s, once per container) instead of parsing 5 MB of lists (about 1.2 s), and ships
in 3.6 MB instead of 10. The fetch step writes it brotli-compressed (adblock-engine.br, read in development);
`make build` recompresses it to zstd for the BrowserLayer (adblock-engine.zst, scripts/pack_zstd.py): as
small, three times faster to inflate, and by the zstandard the BrowserLayer ships, so the SharedLayer
carries no brotli. Nothing here fetches anything: a missing folder is a build error, said plainly.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable
from pathlib import Path

import adblock
import zstandard

from webcapture.settings import Settings, get_settings

LAMBDA_FILTERS_DIR = Path("/opt/page-filters")
_REPO_ROOT = Path(__file__).resolve().parents[5]
ENGINE_FILE = "adblock-engine.br"  # as fetched; the built layer has ENGINE_FILE_ZSTD instead
ENGINE_FILE_ZSTD = "adblock-engine.zst"
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
AUTOCONSENT_SCRIPT = "autoconsent.playwright.js"
AUTOCONSENT_RULES = "autoconsent-rules.json"


class PageFiltersUnavailable(RuntimeError):
    """The page-filters folder was never fetched, or was made for another adblock release."""


def filters_dir(settings: Settings | None = None) -> Path:
    settings = settings or get_settings()
    if settings.page_filters_dir:
        return Path(settings.page_filters_dir)
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return LAMBDA_FILTERS_DIR
    return _REPO_ROOT / ".cache" / "page-filters"


def filter_file(name: str, settings: Settings | None = None) -> Path:
    path = filters_dir(settings) / name
    if not path.is_file():
        raise PageFiltersUnavailable(f"{path} is missing: run scripts/fetch_page_filters.sh (make install)")
    return path


def engine_file(settings: Settings | None = None) -> Path:
    """The compiled engine: the built layer's .zst, else the fetched .br."""
    zstd = filters_dir(settings) / ENGINE_FILE_ZSTD
    return zstd if zstd.is_file() else filter_file(ENGINE_FILE, settings)


def compile_engine(lists: Iterable[str]) -> bytes:
    """The engine for these filter lists (Adblock Plus / uBlock Origin syntax), serialized and compressed."""
    filter_set = adblock.FilterSet()
    for text in lists:
        filter_set.add_filter_list(text)
    serialized = adblock.Engine(filter_set, optimize=True).serialize()
    # brotli: the fetch step runs in the dev venv, which has it; imported here because Lambda has none.
    import brotli

    compressed: bytes = brotli.compress(serialized, quality=9)
    return compressed


def engine_from(data: bytes) -> adblock.Engine:
    """The engine from its compressed serialization, zstd (the built layer's) or brotli (as fetched)."""
    engine = adblock.Engine(adblock.FilterSet())
    try:
        engine.deserialize(_inflate(data))
    except (adblock.DeserializationError, zstandard.ZstdError, ValueError) as exc:
        raise PageFiltersUnavailable(
            f"the compiled filter engine does not load in adblock {adblock_version()}: "
            "run scripts/fetch_page_filters.sh again"
        ) from exc
    return engine


def _inflate(data: bytes) -> bytes:
    if data.startswith(_ZSTD_MAGIC):
        return zstandard.ZstdDecompressor().decompress(data)
    import brotli  # development only: the fetched .br (the dev venv has brotli, Lambda does not)

    try:
        return bytes(brotli.decompress(data))
    except brotli.error as exc:
        raise ValueError("not a brotli stream") from exc


def adblock_version() -> str:
    return str(getattr(adblock, "__version__", "?"))


_engine: adblock.Engine | None = None
_engine_lock = threading.Lock()


def shared_engine() -> adblock.Engine:
    """The engine, loaded on first use and kept for the container's life (it is read-only once loaded)."""
    global _engine
    with _engine_lock:
        if _engine is None:
            _engine = engine_from(engine_file().read_bytes())
        return _engine
