"""The local API's function containers, found by process name, for the tests that kill them."""

from __future__ import annotations

from pathlib import Path

from localapi.container_worker import process_name
from webcapture.browser.launch import processes


def function_containers(root: int, function: str) -> list[int]:
    """Process ids of `function`'s containers (its logical id) among the descendants of `root`."""
    name, found, todo = process_name(function), [], [root]
    while todo:
        for child in processes.children(todo.pop()):
            todo.append(child)
            try:
                if Path(f"/proc/{child}/comm").read_text().strip() == name:
                    found.append(child)
            except OSError:
                pass
    return found
