"""What each operation costs (CONTRACT 3)."""

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
    Operation.MAP: 1,
}


def cost_of(operation: Operation) -> int:
    return CREDITS[operation]
