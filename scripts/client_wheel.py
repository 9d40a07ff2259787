"""`make client-test`: the client's wheel (`make client`) installed as a user installs it, in an empty venv,
and the client's own tests (clients/python/tests, standard library unittest) run there.

What it proves, beside the tests passing: the wheel installs with nothing beyond the standard library (pip
runs with --no-index: any dependency would fail the install), its files stay under MAX_INSTALLED_BYTES,
`webcapture --version` answers, and the service's packages (boto3, Playwright) cannot be imported there.
The e2e test tests/e2e/test_e2e_client_wheel.py reuses `empty_venv` to drive the local API from such a venv.

    python scripts/client_wheel.py [--wheel dist/webcapture_client-*.whl]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLIENT = REPO / "clients" / "python"
DIST = REPO / "dist"
MAX_INSTALLED_BYTES = 5 * 1024 * 1024
NOT_INSTALLABLE_THERE = ("boto3", "playwright", "webcapture")


def newest_wheel() -> Path:
    wheels = sorted(DIST.glob("webcapture_client-*.whl"), key=lambda path: path.stat().st_mtime)
    if not wheels:
        raise SystemExit("no wheel in dist/: run `make client`")
    return wheels[-1]


def empty_venv(where: Path, wheel: Path) -> Path:
    """A venv with only pip, then the wheel without an index: its python."""
    venv.EnvBuilder(with_pip=True).create(where)
    python = where / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-index",
                    "--disable-pip-version-check", str(wheel)], check=True)
    return python


def installed_bytes(python: Path) -> int:
    """The size of every file the wheel installed (its RECORD), scripts included."""
    probe = ("import importlib.metadata as m, sys\n"
             "files = m.distribution('webcapture-client').files or []\n"
             "print(sum(f.locate().stat().st_size for f in files if f.locate().exists()))")
    return int(subprocess.run([str(python), "-c", probe], check=True, capture_output=True, text=True).stdout)


def requirements(python: Path) -> list[str]:
    probe = "import importlib.metadata as m; print('\\n'.join(m.requires('webcapture-client') or []))"
    return subprocess.run([str(python), "-c", probe], check=True, capture_output=True,
                          text=True).stdout.split("\n")[:-1]


def check(python: Path) -> list[str]:
    """What is wrong with the install at `python`, one line each (none: all good)."""
    problems = []
    size = installed_bytes(python)
    print(f"webcapture-client installs {size / 1024:.0f} KiB")
    if size >= MAX_INSTALLED_BYTES:
        problems.append(f"installed size {size} bytes, over {MAX_INSTALLED_BYTES}")
    required = requirements(python)
    if any("extra ==" not in line for line in required):
        problems.append(f"dependencies beyond the standard library: {required}")
    version = subprocess.run([str(python.with_name("webcapture")), "--version"], capture_output=True,
                             text=True)
    if version.returncode != 0 or not version.stdout.startswith("webcapture "):
        problems.append(f"`webcapture --version` answered {version.returncode}: "
                        f"{version.stdout}{version.stderr}")
    for name in NOT_INSTALLABLE_THERE:
        imported = subprocess.run([str(python), "-c", f"import {name}"], capture_output=True)
        if imported.returncode == 0:
            problems.append(f"`import {name}` works in the client's venv")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="default: the newest in dist/")
    wheel = parser.parse_args(argv).wheel or newest_wheel()
    with tempfile.TemporaryDirectory(prefix="webcapture-client-") as tmp:
        python = empty_venv(Path(tmp) / "venv", wheel)
        problems = check(python)
        for problem in problems:
            print(f"client wheel: {problem}", file=sys.stderr)
        # From a folder outside the repository: the tests import the installed package, not the source.
        tests = subprocess.run([str(python), "-m", "unittest", "discover", "-s", str(CLIENT / "tests"),
                                "-t", str(CLIENT)], cwd=tmp)
    return 1 if problems or tests.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
