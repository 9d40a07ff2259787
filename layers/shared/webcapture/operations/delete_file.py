"""POST /v1/files/delete (CONTRACT 10)."""

from __future__ import annotations

from typing import Any

from webcapture.auth.caller import Caller
from webcapture.credits import Operation, cost_of
from webcapture.metering import metered
from webcapture.models.requests import FileDeleteRequest
from webcapture.stored_files import delete_file as delete_stored_file


def delete_file(caller: Caller, request: FileDeleteRequest) -> dict[str, Any]:
    with metered(caller, cost_of(Operation.FILES_DELETE)):
        result = delete_stored_file(
            user_id=caller.user_id, file_id=request.fileId, delete_from_storage=request.deleteFromStorage
        )
    data: dict[str, Any] = result.as_data()
    return data
