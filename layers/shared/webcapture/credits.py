"""What each operation costs (docs/api.md#credits)."""

from __future__ import annotations

from enum import StrEnum


class Operation(StrEnum):
    SCREENSHOT = "screenshot"
    LINKS = "links"
    AI_EXTRACT = "ai-extract"
    FILES_DELETE = "files/delete"
    API_KEYS_LIST = "api-keys/list"
    MARKDOWN = "markdown"
    CONTENT = "content"
    PDF = "pdf"
    SIGNING_SECRET = "signing/secret"  # noqa: S105 - a route's name, not a secret
    MAP = "map"


CREDITS: dict[Operation, int] = {
    Operation.SCREENSHOT: 1,
    Operation.LINKS: 1,
    Operation.AI_EXTRACT: 5,
    Operation.FILES_DELETE: 0,
    Operation.API_KEYS_LIST: 0,
    Operation.MARKDOWN: 1,
    Operation.CONTENT: 1,
    Operation.PDF: 1,
    Operation.SIGNING_SECRET: 0,
    Operation.MAP: 1,
}


def cost_of(operation: Operation) -> int:
    return CREDITS[operation]
