"""Playwright's Node at cold start: left alone where the wheel's own is present, else unpacked once from the
BrowserLayer's node.br and handed to Playwright through PLAYWRIGHT_NODEJS_PATH (on a tiny fake Node)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import brotli
import pytest
import zstandard

from webcapture.browser.launch import node_runtime
from webcapture.browser.launch.node_runtime import (
    NODE_PATH_ENV,
    NodeUnavailable,
    ensure_playwright_node,
    unpack_node,
)
from webcapture.settings import Settings

FAKE_NODE = b"#!/bin/sh\necho fake-node \"$@\"\n" + b"# padding\n" * 5000


@pytest.fixture
def driver(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "site" / "playwright" / "driver"
    (folder / "package").mkdir(parents=True)
    monkeypatch.setattr(node_runtime, "playwright_driver_dir", lambda: folder)
    monkeypatch.delenv(NODE_PATH_ENV, raising=False)
    return folder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(cache_dir=tmp_path / "tmp")


def test_the_wheels_own_node_is_used_as_is(driver: Path, settings: Settings) -> None:
    (driver / "node").write_bytes(FAKE_NODE)
    assert ensure_playwright_node(settings) is None
    assert NODE_PATH_ENV not in os.environ
    assert not settings.cache_dir.exists()


def test_a_configured_node_wins(driver: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch,
                                tmp_path: Path) -> None:
    own = tmp_path / "own-node"
    own.write_bytes(FAKE_NODE)
    monkeypatch.setenv(NODE_PATH_ENV, str(own))
    (driver / "node.br").write_bytes(brotli.compress(FAKE_NODE))
    assert ensure_playwright_node(settings) is None
    assert os.environ[NODE_PATH_ENV] == str(own)


def test_a_vanished_node_is_unpacked_again(driver: Path, settings: Settings,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    (driver / "node.br").write_bytes(brotli.compress(FAKE_NODE))
    monkeypatch.setenv(NODE_PATH_ENV, str(settings.cache_dir / "playwright-node-gone" / "node"))
    node = ensure_playwright_node(settings)
    assert node is not None and node.is_file() and os.environ[NODE_PATH_ENV] == str(node)


PACKERS = {"node.zst": lambda raw: zstandard.ZstdCompressor(level=19).compress(raw),  # what make build ships
           "node.br": brotli.compress}


@pytest.mark.parametrize("name", sorted(PACKERS))
def test_packed_node_is_unpacked_once_and_handed_to_playwright(driver: Path, settings: Settings,
                                                               monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    (driver / name).write_bytes(PACKERS[name](FAKE_NODE))
    monkeypatch.setenv(NODE_PATH_ENV, "")  # what monkeypatch restores: unset again afterwards
    node = ensure_playwright_node(settings)
    assert node is not None and node.parent.parent == settings.cache_dir
    assert os.environ[NODE_PATH_ENV] == str(node)
    assert node.read_bytes() == FAKE_NODE
    assert subprocess.run([str(node), "--version"], capture_output=True, text=True, check=True).stdout == (
        "fake-node --version\n")
    first = node.stat().st_mtime_ns
    monkeypatch.setenv(NODE_PATH_ENV, "")
    assert ensure_playwright_node(settings) == node
    assert node.stat().st_mtime_ns == first, "a warm container must not unpack again"


def test_a_shipped_compile_cache_is_handed_to_the_driver(driver: Path, settings: Settings,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (driver / "node.zst").write_bytes(PACKERS["node.zst"](FAKE_NODE))
    (driver / "compile-cache").mkdir()
    for name in (NODE_PATH_ENV, "NODE_COMPILE_CACHE", "NODE_COMPILE_CACHE_PORTABLE"):
        monkeypatch.setenv(name, "")  # what monkeypatch restores: unset again afterwards
    ensure_playwright_node(settings)
    assert os.environ["NODE_COMPILE_CACHE"] == str(driver / "compile-cache")
    assert os.environ["NODE_COMPILE_CACHE_PORTABLE"] == "1"


def test_no_compile_cache_no_variable(driver: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    (driver / "node.zst").write_bytes(PACKERS["node.zst"](FAKE_NODE))
    monkeypatch.setenv(NODE_PATH_ENV, "")
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    ensure_playwright_node(settings)
    assert "NODE_COMPILE_CACHE" not in os.environ


def test_the_real_driver_folder_is_playwrights() -> None:
    driver = node_runtime.playwright_driver_dir()
    assert (driver / "package" / "cli.js").is_file()


@pytest.mark.parametrize("name", sorted(PACKERS))
def test_truncated_pack_leaves_nothing_behind(tmp_path: Path, name: str) -> None:
    packed = tmp_path / name
    packed.write_bytes(PACKERS[name](FAKE_NODE)[:-20])
    with pytest.raises(NodeUnavailable, match="truncated"):
        unpack_node(packed, tmp_path / "tmp")
    assert [p.name for p in (tmp_path / "tmp").iterdir() if not p.name.endswith(".lock")] == []


def test_a_dead_unpacks_staging_folder_is_removed(tmp_path: Path) -> None:
    packed = tmp_path / "node.br"
    packed.write_bytes(brotli.compress(FAKE_NODE))
    stale = tmp_path / "tmp" / "playwright-node-0123456789ab.partial-99999"
    stale.mkdir(parents=True)
    (stale / "node").write_bytes(b"half")
    node = unpack_node(packed, tmp_path / "tmp")
    assert node.read_bytes() == FAKE_NODE
    assert not stale.exists()


def test_no_node_at_all_is_an_error(driver: Path, settings: Settings) -> None:
    with pytest.raises(NodeUnavailable, match=r"neither node nor node\.lz4 / node\.zst"):
        ensure_playwright_node(settings)
