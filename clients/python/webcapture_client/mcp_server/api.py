"""The API as a tool call uses it: the client's one HTTP call, in a worker thread, with progress."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.to_thread
from mcp_types import ContentBlock

from webcapture_client.http import Answer, CliFailure, call
from webcapture_client.mcp_server.failures import NO_KEY, failure_text
from webcapture_client.mcp_server.progress import Progress, while_waiting
from webcapture_client.settings import ClientSettings


class ToolFailure(Exception):
    """A call that failed, with the text the model is shown (a tool error: `isError`)."""


class ToolApi:
    """The API for one tool call: where it is, the key, and the call's progress."""

    def __init__(self, settings: ClientSettings, progress: Progress) -> None:
        self.settings = settings
        self.progress = progress

    async def post(self, path: str, body: dict[str, Any], *, accept: str = "application/json",
                   report_wait: bool = True) -> Answer:
        return await self._send("POST", path, body, accept, report_wait)

    async def get(self, path: str, *, report_wait: bool = True) -> Answer:
        return await self._send("GET", path, None, "application/json", report_wait)

    async def patch(self, path: str, body: dict[str, Any]) -> Answer:
        return await self._send("PATCH", path, body, "application/json", True)

    async def delete(self, path: str) -> Answer:
        return await self._send("DELETE", path, None, "application/json", True)

    async def _send(self, method: str, path: str, body: dict[str, Any] | None, accept: str,
                    report_wait: bool) -> Answer:
        """One call. report_wait: report the seconds waited as progress (a tool that reports its own
        progress, a job's counts, turns it off: one call's progress is on one scale)."""
        key = self.settings.api_key
        if not key:
            raise ToolFailure(NO_KEY)
        send = functools.partial(call, self.settings.api_url, key, path, body, accept=accept, method=method)
        try:
            if not report_wait:
                return await anyio.to_thread.run_sync(send, abandon_on_cancel=True)
            return await while_waiting(self.progress, f"waiting for {path}", send)
        except CliFailure as failure:
            raise ToolFailure(failure_text(failure, self.settings.api_url)) from None

    @staticmethod
    def data(answer: Answer) -> dict[str, Any]:
        """The `data` of a JSON success envelope."""
        try:
            data = answer.json().get("data")
        except (ValueError, CliFailure):
            data = None
        if not isinstance(data, dict):
            raise ToolFailure(f"Unexpected answer from the webcapture API (HTTP {answer.status}): no data.")
        return data


# How a tool runs: the API for this call and the arguments, to the content the model gets.
Run = Callable[[ToolApi, dict[str, Any]], Awaitable[list[ContentBlock]]]
