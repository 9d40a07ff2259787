"""POST /v1/files/delete (docs/api.md#files-delete); the cache entries that answer with the file go with it
(19)."""

from __future__ import annotations

from typing import Any

from webcapture import cache
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
        if result.deleted_from_database:
            cache.drop_file_entries(caller.user_id, request.fileId)
    data: dict[str, Any] = result.as_data()
    return data
