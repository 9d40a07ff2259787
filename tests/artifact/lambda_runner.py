"""Stand-in for Lambda's python3.12 runtime: one cold start and one invocation of a built handler.

Run as `python3.12 -I -S -B lambda_runner.py <task root> <opt> <handler> <event> <result> <name> <MB> <timeout>`:
-I ignores PYTHON* variables, the user's site and this script's own folder, -S the interpreter's
site-packages, so the import path is exactly Lambda's: the function's folder (/var/task), the layers'
python folders under /opt, then the standard library. Standard library only: nothing else is importable
before the path is set.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
import uuid
from pathlib import Path
from typing import Any


class LambdaContext:
    """The attributes of Lambda's context object that handlers and Powertools read."""

    def __init__(self, function_name: str, memory_mb: str, timeout_s: float) -> None:
        self.function_name = function_name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:123456789012:function:{function_name}"
        self.memory_limit_in_mb = memory_mb
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{function_name}"
        self.log_stream_name = "2026/11/21/[$LATEST]artifact"
        self._deadline = time.monotonic() + timeout_s

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main(argv: list[str]) -> int:
    task_root, opt, handler, event_path, result_path = argv[1:6]
    function_name, memory_mb, timeout_s = argv[6], argv[7], float(argv[8])
    # Lambda's python3.12 path order: /var/task, /opt/python/lib/python3.12/site-packages, /opt/python.
    sys.path[:0] = [task_root, f"{opt}/python/lib/python3.12/site-packages", f"{opt}/python"]
    result: dict[str, Any] = {"sys_path": list(sys.path)}
    module_name, _, function = handler.rpartition(".")
    started = time.perf_counter()
    try:
        module = importlib.import_module(module_name)
        result["init_s"] = time.perf_counter() - started
        event = json.loads(Path(event_path).read_text())
        started = time.perf_counter()
        result["response"] = getattr(module, function)(event, LambdaContext(function_name, memory_mb, timeout_s))
        result["invoke_s"] = time.perf_counter() - started
    except Exception as exc:  # the test reports it, as Lambda would report an unhandled error
        result["error"] = {"type": type(exc).__name__, "message": str(exc), "trace": traceback.format_exc()}
    result["modules"] = sorted(
        {str(getattr(mod, "__file__", None)) for mod in list(sys.modules.values()) if getattr(mod, "__file__", None)}
    )
    Path(result_path).write_text(json.dumps(result, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
