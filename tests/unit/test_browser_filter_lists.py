"""The page-filters folder: where it is looked for, the compiled engine's round trip, and plain errors when
the build step was skipped or its output does not fit the installed adblock."""

from __future__ import annotations

from pathlib import Path

import brotli
import pytest
import zstandard

from webcapture.browser.filters.filter_lists import (
    ENGINE_FILE,
    ENGINE_FILE_ZSTD,
    LAMBDA_FILTERS_DIR,
    PageFiltersUnavailable,
    compile_engine,
    engine_file,
    engine_from,
    filter_file,
    filters_dir,
)
from webcapture.settings import Settings


def test_the_folder_is_the_setting_else_the_layer_on_lambda_else_the_repo_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert filters_dir(Settings(page_filters_dir=str(tmp_path))) == tmp_path
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "ScreenshotFunction")
    assert filters_dir(Settings()) == LAMBDA_FILTERS_DIR
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME")
    assert filters_dir(Settings()).parts[-2:] == (".cache", "page-filters")


def test_a_compiled_engine_loads_back_and_keeps_its_rules() -> None:
    engine = engine_from(compile_engine(["||ads.example^$third-party", "@@||ads.example/ok.js", "##.promo-box"]))
    assert engine.check_network_urls("https://ads.example/a.js", "https://site.example/", "script").matched
    assert not engine.check_network_urls("https://ads.example/ok.js", "https://site.example/", "script").matched
    assert not engine.check_network_urls("https://site.example/a.js", "https://site.example/", "script").matched
    assert engine.hidden_class_id_selectors(["promo-box", "article"], [], set()) == [".promo-box"]


def test_the_layers_zstd_engine_loads_like_the_fetched_brotli_one(tmp_path: Path) -> None:
    # `make build` recompresses the fetched adblock-engine.br to adblock-engine.zst (scripts/pack_zstd.py):
    # the same engine, read with the BrowserLayer's zstandard, preferred when both are there.
    serialized = brotli.decompress(compile_engine(["||ads.example^"]))
    (tmp_path / ENGINE_FILE).write_bytes(compile_engine(["||other.example^"]))
    settings = Settings(page_filters_dir=str(tmp_path))
    assert engine_file(settings) == tmp_path / ENGINE_FILE
    (tmp_path / ENGINE_FILE_ZSTD).write_bytes(zstandard.ZstdCompressor(level=19).compress(serialized))
    assert engine_file(settings) == tmp_path / ENGINE_FILE_ZSTD
    engine = engine_from(engine_file(settings).read_bytes())
    assert engine.check_network_urls("https://ads.example/a.js", "https://site.example/", "script").matched
    assert not engine.check_network_urls("https://other.example/a.js", "https://site.example/", "script").matched


def test_a_missing_folder_says_which_step_makes_it(tmp_path: Path) -> None:
    with pytest.raises(PageFiltersUnavailable, match=r"fetch_page_filters\.sh"):
        filter_file(ENGINE_FILE, Settings(page_filters_dir=str(tmp_path / "nowhere")))


@pytest.mark.parametrize("data", [
    b"not brotli at all", brotli.compress(b"not an adblock engine"),
    zstandard.ZstdCompressor().compress(b"not an adblock engine"),
    zstandard.ZstdCompressor().compress(b"x" * 1000)[:-3],  # a truncated frame
])
def test_an_engine_that_does_not_load_is_a_plain_error(data: bytes) -> None:
    with pytest.raises(PageFiltersUnavailable, match=r"fetch_page_filters\.sh"):
        engine_from(data)
