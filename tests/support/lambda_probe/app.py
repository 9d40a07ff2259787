"""A tiny Lambda handler the runtime tests invoke: it reports which container (process) ran it and what it
kept warm, and does what the event asks (wait at a barrier, sleep, die, raise, leave a mark)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

_invocations = 0  # a module global: warm across invocations of one container, separate in each container


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    global _invocations
    _invocations += 1
    if event.get("mark"):
        Path(event["mark"]).write_text(str(os.getpid()))
    if event.get("barrier"):
        # Wait until `parties` invocations have arrived: proof that they ran at the same time.
        folder = Path(event["barrier"])
        (folder / str(os.getpid())).touch()
        deadline = time.monotonic() + 20
        while len(list(folder.iterdir())) < event["parties"] and time.monotonic() < deadline:
            time.sleep(0.02)
    if event.get("sleep"):
        time.sleep(event["sleep"])
    if event.get("die"):
        os._exit(9)
    if event.get("raise"):
        raise RuntimeError(event["raise"])
    return {"pid": os.getpid(), "invocations": _invocations,
            "remainingMs": context.get_remaining_time_in_millis(), "function": context.function_name}
