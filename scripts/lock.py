"""`make lock`: resolve pyproject.toml once into requirements.lock (with hashes), then write every package's
requirements.txt from it. The lock is the only place a version is chosen: the dev venv installs it as it is,
and each Lambda package's requirements.txt is the lock cut down to what that package ships.

Each shipped package names what it needs in a `requirements.in` beside its requirements.txt (names only,
never versions). Two kinds:
- with dependencies (the default): uv resolves the names for Lambda's Python and platform, held to the lock's
  versions by `--constraint requirements.lock`, so every package it brings is pinned and hashed too;
- `# no-deps` on the .in's first line: exactly the names listed, for the BrowserLayer's main-content step
  and the node layers, whose Makefiles install with --no-deps.

Usage: python scripts/lock.py            resolve afresh (make lock)
       python scripts/lock.py --subsets  only rewrite the requirements.txt files from the lock as it is
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent
LOCK = "requirements.lock"
# Lambda's runtime: python3.12 on Amazon Linux 2023 (glibc 2.34).
LAMBDA_TARGET = ["--python-version", "3.12", "--python-platform", "x86_64-manylinux_2_28"]
HEADER = "# Written by `make lock` (scripts/lock.py) from {source} and requirements.lock: do not edit.\n"


def uv(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "uv", "pip", "compile", "--quiet", *args], cwd=REPO, check=True)


def normalised(requirement: str) -> str:
    return Requirement(requirement.rstrip(" \\")).name.lower().replace("_", "-")


def lock_entries(lock_text: str) -> dict[str, str]:
    """Each locked requirement's name (normalised) -> its whole entry: the pin, its marker and its hashes."""
    blocks: list[list[str]] = []
    for line in lock_text.splitlines():
        if line and not line.startswith((" ", "#")):
            blocks.append([line])
        elif line.startswith("    --hash") and blocks:
            blocks[-1].append(line)
    return {normalised(block[0]): "\n".join(block) for block in blocks}


def inputs() -> list[Path]:
    roots = (REPO / "layers", REPO / "functions")
    return sorted(path for root in roots for path in root.glob("**/*requirements.in"))


def write_subset(source: Path, entries: dict[str, str]) -> None:
    target = source.with_suffix(".txt")
    text = source.read_text()
    header = HEADER.format(source=source.relative_to(REPO))
    if text.startswith("# no-deps"):
        names = [line.split("#")[0].strip() for line in text.splitlines()]
        pins = [entries[normalised(name)] for name in names if name]
        target.write_text(header + "".join(pin + "\n" for pin in pins))
        return
    uv(str(source.relative_to(REPO)), "--constraint", LOCK, *LAMBDA_TARGET, "--generate-hashes",
       "--no-header", "--output-file", str(target.relative_to(REPO)))
    target.write_text(header + target.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subsets", action="store_true", help="keep the lock, rewrite the requirements.txt")
    if not parser.parse_args().subsets:
        uv("pyproject.toml", "--extra", "dev", "--universal", "--python-version", "3.11", "--generate-hashes",
           "--output-file", LOCK)
    entries = lock_entries((REPO / LOCK).read_text())
    for source in inputs():
        write_subset(source, entries)


if __name__ == "__main__":
    main()
