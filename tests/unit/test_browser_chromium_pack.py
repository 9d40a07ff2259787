"""Which Chromium runs, and the once-per-container unpacking of the pinned pack (on a tiny fake pack)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import brotli
import pytest
import zstandard

from scripts.pack_zstd import write_lz4
from webcapture.browser.launch import chromium_pack, node_runtime, processes
from webcapture.browser.launch.chromium_pack import ChromiumUnavailable, pack_dir, resolve_chromium, unpack
from webcapture.browser.launch.unpack_once import InflateJob, inflate
from webcapture.settings import Settings


def _tar_br(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755
            archive.addfile(info, io.BytesIO(data))
    return brotli.compress(buffer.getvalue())


def _lz4(raw: bytes) -> bytes:
    out = io.BytesIO()
    write_lz4(io.BytesIO(raw), out, len(raw))  # the packer's own frame: content size and checksum
    return out.getvalue()


@pytest.fixture(params=["br", "zst", "lz4"])
def fake_pack(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """A pack as fetched (brotli, .br), recompressed to zstandard (.zst), and as `make build` ships it
    (the binary as lz4, the tarballs as zstandard)."""
    pack = tmp_path / "pack"
    (pack / "fonts-extra").mkdir(parents=True)
    (pack / "chromium.br").write_bytes(brotli.compress(b"#!/bin/sh\necho fake-chromium\n" * 1000))
    (pack / "swiftshader.tar.br").write_bytes(
        _tar_br({"libEGL.so": b"egl", "vk_swiftshader_icd.json": b"{}"})
    )
    (pack / "al2023.tar.br").write_bytes(_tar_br({"lib/libnss3.so": b"nss"}))
    (pack / "fonts.tar.br").write_bytes(
        _tar_br(
            {"fonts.conf": b"<fontconfig><dir>/tmp/fonts</dir></fontconfig>", "fonts/Open_Sans/a.ttf": b"f"}
        )
    )
    (pack / "PACK").write_text("fake 1\n")
    if request.param != "br":
        for packed in pack.glob("*.br"):
            raw = brotli.decompress(packed.read_bytes())
            if request.param == "lz4" and packed.stem == "chromium":
                packed.with_suffix(".lz4").write_bytes(_lz4(raw))
            else:
                packed.with_suffix(".zst").write_bytes(zstandard.ZstdCompressor(level=19).compress(raw))
            packed.unlink()
    return pack


def test_unpack_lays_out_the_build_and_its_environment(fake_pack: Path, tmp_path: Path) -> None:
    install = unpack(fake_pack, tmp_path / "cache")
    root = install.executable.parent
    assert install.executable.name == "chromium"
    assert subprocess.run([install.executable], capture_output=True, text=True).stdout.startswith(
        "fake-chromium"
    )
    # SwiftShader beside the binary, where Chromium looks for its GL libraries.
    assert (root / "libEGL.so").read_bytes() == b"egl"
    assert install.env["LD_LIBRARY_PATH"].split(":")[0] == str(root / "al2023" / "lib")
    assert (root / "al2023" / "lib" / "libnss3.so").is_file()
    # Our fontconfig file replaces the build's (which names /tmp/fonts): the build's fonts, the Noto fonts
    # read in place from the pack, and a cache beside the build.
    conf = Path(install.env["FONTCONFIG_FILE"]).read_text()
    assert "/tmp/fonts<" not in conf
    assert f"<dir>{root / 'fonts' / 'fonts'}</dir>" in conf
    assert f"<dir>{fake_pack / 'fonts-extra'}</dir>" in conf
    assert f"<cachedir>{root / 'fonts-cache'}</cachedir>" in conf
    assert (root / "fonts" / "fonts" / "Open_Sans" / "a.ttf").is_file()


def test_unpack_runs_once(fake_pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = unpack(fake_pack, tmp_path / "cache")

    def fail(*_args: object) -> None:
        raise AssertionError("unpacked twice")

    monkeypatch.setattr(chromium_pack, "_fill", fail)
    assert unpack(fake_pack, tmp_path / "cache") == first


def test_a_new_pack_gets_a_new_folder(fake_pack: Path, tmp_path: Path) -> None:
    first = unpack(fake_pack, tmp_path / "cache")
    (fake_pack / "PACK").write_text("fake 2\n")
    second = unpack(fake_pack, tmp_path / "cache")
    assert first.executable != second.executable
    assert second.executable.is_file()


def test_a_pack_elsewhere_gets_its_own_folder_that_names_its_own_fonts(fake_pack: Path, tmp_path: Path) -> None:
    # Two checkouts share one cache dir; the first one's pack (and its fonts-extra) may be deleted since.
    first = unpack(fake_pack, tmp_path / "cache")
    moved = shutil.copytree(fake_pack, tmp_path / "another-checkout" / "pack")
    shutil.rmtree(fake_pack)
    second = unpack(moved, tmp_path / "cache")
    assert first.executable != second.executable
    conf = Path(second.env["FONTCONFIG_FILE"]).read_text()
    assert f"<dir>{moved / 'fonts-extra'}</dir>" in conf
    assert str(fake_pack) not in conf


def test_parallel_processes_unpack_without_racing(fake_pack: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    script = (
        "import sys; from pathlib import Path; from webcapture.browser.launch.chromium_pack import unpack;"
        "print(unpack(Path(sys.argv[1]), Path(sys.argv[2])).executable)"
    )
    runs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(fake_pack), str(cache)], stdout=subprocess.PIPE, text=True
        )
        for _ in range(4)
    ]
    outputs = {run.communicate(timeout=60)[0].strip() for run in runs}
    assert all(run.returncode == 0 for run in runs)
    assert len(outputs) == 1
    built = [entry.name for entry in cache.iterdir() if entry.is_dir()]
    assert len(built) == 1 and ".partial" not in built[0]
    assert (cache / built[0] / ".complete").exists()


def test_threads_of_one_process_unpack_once(fake_pack: Path, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # The warm start unpacks on its own thread while the first request may ask for the same browser.
    fills: list[int] = []
    real_fill = chromium_pack._fill

    def counting_fill(*args: Path) -> None:
        fills.append(threading.get_ident())
        real_fill(*args)

    monkeypatch.setattr(chromium_pack, "_fill", counting_fill)
    with ThreadPoolExecutor(4) as pool:
        installs = list(pool.map(lambda _: unpack(fake_pack, tmp_path / "cache"), range(4)))
    assert len({install.executable for install in installs}) == 1
    assert len(fills) == 1


def test_truncated_pack_is_refused_and_leaves_nothing(fake_pack: Path, tmp_path: Path) -> None:
    [packed] = fake_pack.glob("chromium.*")
    data = packed.read_bytes()
    packed.write_bytes(data[: len(data) // 2])
    with pytest.raises(ChromiumUnavailable, match=f"{packed.name} is truncated"):
        unpack(fake_pack, tmp_path / "cache")
    assert [entry for entry in (tmp_path / "cache").iterdir() if entry.is_dir()] == []


def test_missing_pack_says_how_to_fetch_it(tmp_path: Path) -> None:
    with pytest.raises(ChromiumUnavailable, match=r"fetch_chromium\.sh"):
        unpack(tmp_path / "nowhere", tmp_path / "cache")


def test_webcapture_chromium_skips_the_pack(tmp_path: Path) -> None:
    install = resolve_chromium(Settings(chromium_path="/bin/sh", chromium_pack_dir=str(tmp_path / "none")))
    assert install.executable == Path("/bin/sh")
    assert install.env == {}  # a system Chromium finds its own libraries and fonts
    with pytest.raises(ChromiumUnavailable):
        resolve_chromium(Settings(chromium_path=str(tmp_path / "no-such-chromium")))


def test_pack_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("AWS_LAMBDA_FUNCTION_NAME", raising=False)
    assert (
        pack_dir(Settings()) == Path(chromium_pack.__file__).resolve().parents[5] / ".cache" / "chromium-pack"
    )
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_NAME", "screenshot")
    assert pack_dir(Settings()) == Path("/opt/chromium")
    assert pack_dir(Settings(chromium_pack_dir=str(tmp_path))) == tmp_path


def test_the_fetched_pack_has_the_fonts() -> None:
    pack = pack_dir(Settings())
    assert (pack / "PACK").read_text().startswith("sparticuz-chromium=153.0.0 ")
    fonts = {path.name: path.stat().st_size for path in (pack / "fonts-extra").iterdir()}
    assert set(fonts) == {"NotoSansCJK-Regular.ttc", "NotoColorEmoji.ttf"}
    assert 15e6 < fonts["NotoSansCJK-Regular.ttc"] < 25e6  # one regular CJK face, not the whole family


def test_a_built_layers_zst_wins_over_a_br(fake_pack: Path, tmp_path: Path) -> None:
    (fake_pack / "chromium.lz4").unlink(missing_ok=True)
    (fake_pack / "chromium.zst").write_bytes(zstandard.ZstdCompressor().compress(b"#!/bin/sh\necho zst\n"))
    (fake_pack / "chromium.br").write_bytes(brotli.compress(b"#!/bin/sh\necho br\n"))
    install = unpack(fake_pack, tmp_path / "cache")
    assert install.executable.read_bytes() == b"#!/bin/sh\necho zst\n"


def test_a_built_layers_lz4_wins_over_a_zst(fake_pack: Path, tmp_path: Path) -> None:
    (fake_pack / "chromium.lz4").write_bytes(_lz4(b"#!/bin/sh\necho lz4\n"))
    (fake_pack / "chromium.zst").write_bytes(zstandard.ZstdCompressor().compress(b"#!/bin/sh\necho zst\n"))
    install = unpack(fake_pack, tmp_path / "cache")
    assert install.executable.read_bytes() == b"#!/bin/sh\necho lz4\n"


@pytest.mark.parametrize("suffix", [".lz4", ".zst"])
def test_a_binary_larger_than_the_read_and_write_sizes_inflates_whole(suffix: str, tmp_path: Path) -> None:
    # Real binaries (117 and 209 MB) are inflated in 128 KB to 1 MB pieces: 9 MB, part of it incompressible,
    # goes through dozens of them and across the lz4 frame's 4 MB blocks.
    raw = os.urandom(3 << 20) + bytes(range(256)) * (24 << 10)
    packed = tmp_path / f"chromium{suffix}"
    packed.write_bytes(_lz4(raw) if suffix == ".lz4" else zstandard.ZstdCompressor(level=3).compress(raw))
    assert inflate([InflateJob(packed, tmp_path / "out")]) == []
    assert (tmp_path / "out").read_bytes() == raw


@pytest.mark.parametrize("damage", ["flipped byte", "no end mark", "not lz4"])
def test_a_damaged_lz4_binary_is_refused(damage: str, tmp_path: Path) -> None:
    # A flipped byte fails the frame's content checksum; a frame cut just before its end mark inflates all
    # its blocks but never reaches the end: both would otherwise leave a binary that looks complete.
    raw = bytes(range(256)) * 4000
    frame = bytearray(_lz4(raw))
    if damage == "flipped byte":
        frame[len(frame) // 2] ^= 0xFF
    elif damage == "no end mark":
        del frame[-8:]  # the end mark (4 bytes) and the content checksum (4 bytes)
    else:
        frame[:4] = b"nope"
    packed = tmp_path / "chromium.lz4"
    packed.write_bytes(bytes(frame))
    assert inflate([InflateJob(packed, tmp_path / "out")]) == [packed]


def test_inflate_runs_its_child_at_the_niceness_asked(tmp_path: Path) -> None:
    # The source is a pipe the test fills only once it has read the child's niceness from /proc.
    source = tmp_path / "node.br"
    os.mkfifo(source)
    with ThreadPoolExecutor(max_workers=1) as pool:
        done = pool.submit(inflate, [InflateJob(source, tmp_path / "out")], niceness=7)
        niceness = _settled_niceness(_inflating_child(source), os.nice(0) + 7)
        with source.open("wb") as pipe:
            pipe.write(brotli.compress(b"node"))
        assert done.result(timeout=30) == []
    assert niceness == os.nice(0) + 7
    assert (tmp_path / "out").read_bytes() == b"node"


def _settled_niceness(pid: int, expected: int) -> int:
    """The child's niceness once it is expected (it sets it first thing), or what it stayed at."""
    deadline = time.monotonic() + 10
    while True:
        niceness = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
        if niceness == expected or time.monotonic() > deadline:
            return niceness
        time.sleep(0.01)


def _inflating_child(source: Path) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for pid in processes.descendants(os.getpid()):
            if str(source) in processes.cmdline(pid):
                return pid
        time.sleep(0.01)
    raise AssertionError("no inflating child")


@pytest.mark.parametrize(("packed_node", "niceness"), [("node.zst", 7), ("node.lz4", 0), (None, 0)])
def test_chromium_inflates_at_a_lower_priority_only_beside_a_zstd_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, packed_node: str | None, niceness: int
) -> None:
    # NodeCompactLayer's zstd Node is the slower unpack at a cold start: Chromium's yields to it. Beside
    # NodeLayer's lz4 Node (or an unpacked one, in development) Chromium's is the slower and is not held back.
    packed = tmp_path / packed_node if packed_node is not None else None
    monkeypatch.setattr(node_runtime, "packed_node", lambda: packed)
    assert chromium_pack.unpack_niceness() == niceness
