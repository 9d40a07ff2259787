"""`make client-test`: the client's wheel (`make client`) installed as a user installs it, in an empty venv,
and the client's own tests (clients/python/tests, standard library unittest) run there.

What it proves, beside the tests passing: the wheel installs with nothing beyond the standard library (pip
runs with --no-index: any dependency would fail the install), its files stay under MAX_INSTALLED_BYTES,
`webcapture --version` answers, and the service's packages (boto3, Playwright) cannot be imported there.
Then the wheel with its `[mcp]` extra, in a second empty venv, from the package index as a user installs it:
`webcapture mcp` starts there and lists its tools to the MCP SDK's own stdio client (every tool of
tool_schemas.json with its fields, and those without a body's schema), and the service's packages are still
not there.
The e2e test tests/e2e/test_e2e_client_wheel.py reuses `empty_venv` to drive the local API from such a venv.

    python scripts/client_wheel.py [--wheel dist/webcapture_client-*.whl]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CLIENT = REPO / "clients" / "python"
DIST = REPO / "dist"
MAX_INSTALLED_BYTES = 5 * 1024 * 1024
NOT_INSTALLABLE_THERE = ("boto3", "playwright", "webcapture")
TOOL_SCHEMAS = CLIENT / "webcapture_client" / "mcp_server" / "tool_schemas.json"
# Their input is a GET's (or DELETE's) path and query parameters, not a request body.
TOOLS_WITHOUT_A_ROUTE_SCHEMA = {"job_status", "monitor_list", "monitor_get", "monitor_delete", "monitor_run",
                                "monitor_checks"}
MCP_START_TIMEOUT_S = 120  # importing the MCP SDK on a loaded machine; the listing itself is instant
# Run by the [mcp] venv's python: the SDK's stdio client starts `webcapture mcp` (argv[1]) and prints every
# listed tool's input schema by name. No call is made, so the API address and key are placeholders.
LIST_TOOLS = """
import json, sys
import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

async def main():
    server = StdioServerParameters(command=sys.argv[1], args=["mcp"], env={
        "WEBCAPTURE_API_URL": "http://127.0.0.1:9", "WEBCAPTURE_API_KEY": "wc_not_used"})
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
    print(json.dumps({tool.name: tool.input_schema for tool in listed.tools}))

anyio.run(main)
"""


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


def start_mcp_venv(where: Path, wheel: Path) -> tuple[Path, subprocess.Popen[str]]:
    """An empty venv (not even pip), and `wheel[mcp]` being installed there from the package index by this
    Python's pip, resolved as a user's install resolves it: the venv's python and the running install."""
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    install = subprocess.Popen([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                                "--disable-pip-version-check", f"{wheel}[mcp]"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return python, install


def check_mcp(python: Path) -> list[str]:
    """What is wrong with `webcapture mcp` in the [mcp] venv at `python`, one line each."""
    listing = subprocess.run([str(python), "-c", LIST_TOOLS, str(python.with_name("webcapture"))],
                             capture_output=True, text=True, timeout=MCP_START_TIMEOUT_S)
    if listing.returncode != 0:
        return [f"`webcapture mcp` did not list its tools over stdio: {listing.stderr.strip()[-2000:]}"]
    listed: dict[str, dict[str, Any]] = json.loads(listing.stdout)
    expected: dict[str, dict[str, Any]] = {name: entry["inputSchema"]
                                 for name, entry in json.loads(TOOL_SCHEMAS.read_text()).items()}
    problems = []
    if set(listed) != set(expected) | TOOLS_WITHOUT_A_ROUTE_SCHEMA:
        problems.append(f"`webcapture mcp` listed {sorted(listed)}, not {sorted(expected)} and "
                        f"{sorted(TOOLS_WITHOUT_A_ROUTE_SCHEMA)}")
    for name in set(listed) & set(expected):
        missing = set(expected[name].get("properties", {})) - set(listed[name].get("properties", {}))
        if missing:
            problems.append(f"the {name} tool's input schema lacks {sorted(missing)}")
    print(f"`webcapture mcp` listed {len(listed)} tools over stdio")
    for name in NOT_INSTALLABLE_THERE:
        if subprocess.run([str(python), "-c", f"import {name}"], capture_output=True).returncode == 0:
            problems.append(f"`import {name}` works in the client's [mcp] venv")
    return problems


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
        started = time.monotonic()
        # The [mcp] install mostly waits on the package index: it runs while the wheel alone is tested.
        with_mcp, installing = start_mcp_venv(Path(tmp) / "venv-mcp", wheel)
        python = empty_venv(Path(tmp) / "venv", wheel)
        problems = check(python)
        # From a folder outside the repository: the tests import the installed package, not the source.
        tests = subprocess.run([str(python), "-m", "unittest", "discover", "-s", str(CLIENT / "tests"),
                                "-t", str(CLIENT)], cwd=tmp)
        print(f"the wheel alone: {time.monotonic() - started:.0f} s")
        output, _ = installing.communicate()
        print(f"the wheel with [mcp]: installed after {time.monotonic() - started:.0f} s")
        if installing.returncode != 0:
            problems.append(f"`pip install wheel[mcp]` failed: {output.strip()[-2000:]}")
        else:
            problems += check_mcp(with_mcp)
            print(f"the wheel with [mcp]: tools listed after {time.monotonic() - started:.0f} s")
        for problem in problems:
            print(f"client wheel: {problem}", file=sys.stderr)
    return 1 if problems or tests.returncode else 0

if __name__ == "__main__":
    sys.exit(main())
