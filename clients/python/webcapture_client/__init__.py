"""webcapture's client: the `webcapture` CLI and the MCP server, over the API's HTTP."""

__version__ = "1.0.0"
