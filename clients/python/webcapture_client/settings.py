"""Where the API is and the key, from the environment: what the CLI, the SDK and the MCP server read."""

from __future__ import annotations

import os
from dataclasses import dataclass

DEFAULT_API_URL = "http://127.0.0.1:3000"


@dataclass(frozen=True)
class ClientSettings:
    api_url: str = DEFAULT_API_URL
    api_key: str | None = None


def client_settings() -> ClientSettings:
    return ClientSettings(
        api_url=(os.environ.get("WEBCAPTURE_API_URL", "").strip() or DEFAULT_API_URL).rstrip("/"),
        api_key=os.environ.get("WEBCAPTURE_API_KEY", "").strip() or None,
    )
