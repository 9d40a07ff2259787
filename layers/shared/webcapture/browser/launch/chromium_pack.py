"""Which Chromium to run, and unpacking the pinned @sparticuz/chromium build once per container.

The pack folder (made by scripts/fetch_chromium.sh; the Lambda layer ships the same folder at /opt/chromium)
holds the build's files compressed, plus the Noto CJK and emoji fonts: brotli as published (`.br`) in
development, recompressed in the built layer by scripts/pack_zstd.py (the binary to lz4, `.lz4`, the
fastest to inflate; the tarballs to zstandard, `.zst`). Lambda's layer size limit is why they stay
compressed there; the unpacked browser (~220 MB) goes to the cache dir, which on Lambda is /tmp and
survives between invocations of a warm container, so this runs once per container.

Layout of an unpacked build (<cache_dir>/chromium-<key>/):
    chromium, libEGL.so, libGLESv2.so, ...   the binary with SwiftShader beside it, where Chromium looks
                                             for its GL libraries
    al2023/lib/        NSS and expat, which Amazon Linux 2023 (and slim Debian) lack: on LD_LIBRARY_PATH
    fonts/fonts.conf   our fontconfig file (the build's own one names /tmp/fonts and /opt/fonts, which only
                       fit its Node unpacker's layout)
    fonts/fonts/       the build's Open Sans faces
    fonts-cache/       fontconfig's cache, so later launches skip scanning the 20 MB CJK collection
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from webcapture.browser.launch.inflate_process import ZSTD_SUFFIX
from webcapture.browser.launch.unpack_once import InflateJob, inflate, packed_file, unpack_once
from webcapture.settings import Settings, get_settings

LAMBDA_PACK_DIR = Path("/opt/chromium")
_REPO_ROOT = Path(__file__).resolve().parents[5]
# Each as <name>.zst (the built layer) or <name>.br (a fetched pack).
PACK_MEMBERS = ("chromium", "swiftshader.tar", "al2023.tar", "fonts.tar")
_EXTRA_FONTS = "fonts-extra"
_COMPLETE = ".complete"


class ChromiumUnavailable(RuntimeError):
    """No usable browser: the pack was never fetched, or WEBCAPTURE_CHROMIUM names nothing runnable."""


@dataclass(frozen=True)
class ChromiumInstall:
    executable: Path
    # Variables to add to the browser's environment (library and font paths); empty for a system Chromium,
    # which finds its own libraries and the system's fonts.
    env: dict[str, str] = field(default_factory=dict)


def resolve_chromium(settings: Settings | None = None) -> ChromiumInstall:
    """The browser to launch: WEBCAPTURE_CHROMIUM if set, else the unpacked pinned build."""
    settings = settings or get_settings()
    if settings.chromium_path:
        path = Path(settings.chromium_path)
        if not os.access(path, os.X_OK):
            raise ChromiumUnavailable(f"WEBCAPTURE_CHROMIUM={path} is not an executable file")
        return ChromiumInstall(path)
    return unpack(pack_dir(settings), Path(settings.cache_dir))


def pack_dir(settings: Settings) -> Path:
    if settings.chromium_pack_dir:
        return Path(settings.chromium_pack_dir)
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        return LAMBDA_PACK_DIR
    return _REPO_ROOT / ".cache" / "chromium-pack"


def unpack(pack: Path, cache_dir: Path) -> ChromiumInstall:
    """Expand the pack into cache_dir once; later calls (and other processes) reuse the result."""
    missing = [f"{name}.br" for name in PACK_MEMBERS if packed_file(pack, name) is None]
    if missing:
        raise ChromiumUnavailable(
            f"Chromium pack {pack} lacks {', '.join(missing)}: run scripts/fetch_chromium.sh "
            "or set WEBCAPTURE_CHROMIUM to a Chromium executable"
        )
    target = cache_dir / f"chromium-{_pack_key(pack)}"
    unpack_once(
        target,
        lambda where: (where / _COMPLETE).exists(),
        lambda staging: _fill(pack, staging, target),
        family="chromium-",
    )
    return ChromiumInstall(target / "chromium", _browser_env(target))


def _pack_key(pack: Path) -> str:
    # Names and sizes identify a pack cheaply (hashing 67 MB on every cold start would not); the PACK stamp
    # written by the fetch script names the versions, so a new pin with same-size files still gets a new key.
    # The pack's own location is part of it: the unpacked fonts.conf reads the Noto fonts in place from the
    # pack, so a second checkout (or a fresh clone beside a deleted one) must not reuse a folder whose
    # fonts.conf names another pack's fonts-extra, which may be gone (every glyph then draws blank).
    digest = hashlib.sha256(str(pack.resolve()).encode())
    stamp = pack / "PACK"
    if stamp.is_file():
        digest.update(stamp.read_bytes())
    for name in PACK_MEMBERS:
        packed = _member(pack, name)
        digest.update(f"{packed.name}:{packed.stat().st_size};".encode())
    return digest.hexdigest()[:12]


def _member(pack: Path, name: str) -> Path:
    packed = packed_file(pack, name)
    if packed is None:
        raise ChromiumUnavailable(f"Chromium pack {pack} lacks {name}.br")
    return packed


# At a cold start the unpacks and imports want more CPU than there is. Beside a Node packed as zstd
# (NodeCompactLayer, ai-extract: 0.5 s of CPU to inflate) the slowest chain is Node's unpack, then the
# driver's start, and Chromium's inflate (lz4) has time to spare: a lower priority gives Node's unpack the
# cores first (`make bench-cold`, in turns: first screenshot 1.43-1.47 s at niceness 5-7 against 1.56-1.60
# s). Beside a Node packed as lz4 (NodeLayer: 0.15 s) Chromium's inflate is the slower chain and runs at
# normal priority (docs/benchmarks.md, "Cold start"). Raising one's own niceness needs no privilege.
_UNPACK_NICENESS = 7


def unpack_niceness() -> int:
    """The niceness Chromium's inflate runs at: _UNPACK_NICENESS beside a zstd-packed Node, else 0."""
    from webcapture.browser.launch.node_runtime import packed_node

    node = packed_node()
    return _UNPACK_NICENESS if node is not None and node.suffix == ZSTD_SUFFIX else 0


def _fill(pack: Path, staging: Path, target: Path) -> None:
    truncated = inflate(niceness=unpack_niceness(), jobs=[
        InflateJob(_member(pack, "chromium"), staging / "chromium"),
        # SwiftShader beside the binary, where Chromium looks for its GL libraries.
        InflateJob(_member(pack, "swiftshader.tar"), staging, tar=True),
        InflateJob(_member(pack, "al2023.tar"), staging / "al2023", tar=True),
        InflateJob(_member(pack, "fonts.tar"), staging / "fonts", tar=True),
    ])
    if truncated:
        raise ChromiumUnavailable(f"{truncated[0]} is truncated")
    (staging / "chromium").chmod(0o755)
    # fonts.conf names the final folder, where the files will be once staging is renamed.
    (staging / "fonts" / "fonts.conf").write_text(
        _fonts_conf([target / "fonts" / "fonts", pack / _EXTRA_FONTS], cache=target / "fonts-cache")
    )
    (staging / _COMPLETE).touch()


def _escape(text: str) -> str:
    # What xml.sax.saxutils.escape does, without its import: it pulls in urllib.request, http.client and
    # email (40-180 ms here) before the Chromium unpack can start at a cold start.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _fonts_conf(font_dirs: list[Path], *, cache: Path) -> str:
    lines = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        "<fontconfig>",
        *(f"  <dir>{_escape(str(directory))}</dir>" for directory in font_dirs),
        f"  <cachedir>{_escape(str(cache))}</cachedir>",
        "</fontconfig>",
        "",
    ]
    return "\n".join(lines)


def _browser_env(target: Path) -> dict[str, str]:
    libs = str(target / "al2023" / "lib")
    inherited = os.environ.get("LD_LIBRARY_PATH", "")
    return {
        "LD_LIBRARY_PATH": f"{libs}:{inherited}" if inherited else libs,
        # FONTCONFIG_FILE picks our config; FONTCONFIG_PATH is where fontconfig resolves relative includes.
        "FONTCONFIG_FILE": str(target / "fonts" / "fonts.conf"),
        "FONTCONFIG_PATH": str(target / "fonts"),
    }
