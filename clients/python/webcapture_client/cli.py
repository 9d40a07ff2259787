"""`webcapture`: the API from a shell (`webcapture shot|links|extract|markdown|content|pdf|sign|map|crawl|
batch|job|profiles|monitors`) and `webcapture mcp`, the MCP server over stdio for AI agents.

Only the standard library is imported here: the MCP SDK (the `[mcp]` extra) is imported by `webcapture mcp`
alone, so the other commands run where only the client is installed, and start fast.
"""

from __future__ import annotations

import argparse
import sys

from webcapture_client import __version__
from webcapture_client import commands as client_commands


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webcapture", description="webcapture: the API from a shell")
    parser.add_argument("--version", action="version", version=f"webcapture {__version__}")
    commands = parser.add_subparsers(dest="group", required=True)
    client_commands.add_commands(commands)
    commands.add_parser("mcp", help="an MCP server over stdio, for AI agents: the API's tools "
                                    "($WEBCAPTURE_API_URL, $WEBCAPTURE_API_KEY; needs the [mcp] extra)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.group == "mcp":
        try:
            from webcapture_client.mcp_server.server import serve_stdio  # the MCP SDK, only for this command
        except ImportError as error:
            print(f"webcapture: `webcapture mcp` needs the MCP SDK: pip install 'webcapture-client[mcp]' "
                  f"({error})", file=sys.stderr)
            return 2
        return serve_stdio()
    return client_commands.run(args)


if __name__ == "__main__":
    sys.exit(main())
