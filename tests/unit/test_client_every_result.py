"""The CLI refuses to end quietly with fewer results than the job counts: a lost page is an error."""

from __future__ import annotations

import pytest

from webcapture.client.http import CliFailure
from webcapture.client.jobs import check_every_result

JOB = {"jobId": "j", "status": "completed", "completed": 2, "failed": 1}


def result(index: int, status: str = "completed") -> dict[str, object]:
    return {"index": index, "status": status}


def test_every_counted_result_read_passes() -> None:
    check_every_result(JOB, [result(0), result(1), result(2, "failed")])


@pytest.mark.parametrize("results", [
    [result(0), result(2, "failed")],  # a page lost
    [result(0), result(0), result(2, "failed")],  # one read twice instead of another
])
def test_a_missing_or_repeated_result_stops_with_an_error(results: list[dict[str, object]]) -> None:
    with pytest.raises(CliFailure) as failure:
        check_every_result(JOB, results)
    assert failure.value.exit_code == 7 and "webcapture job j" in str(failure.value)
