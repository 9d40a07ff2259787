"""The CLI refuses to end quietly with fewer results than the job counts: a lost page is an error."""

from __future__ import annotations

import unittest

from webcapture_client.http import CliFailure
from webcapture_client.jobs import check_every_result

JOB = {"jobId": "j", "status": "completed", "completed": 2, "failed": 1}


def result(index: int, status: str = "completed") -> dict[str, object]:
    return {"index": index, "status": status}


class EveryResultTest(unittest.TestCase):
    def test_every_counted_result_read_passes(self) -> None:
        check_every_result(JOB, [result(0), result(1), result(2, "failed")])

    def test_a_missing_or_repeated_result_stops_with_an_error(self) -> None:
        for results in ([result(0), result(2, "failed")],  # a page lost
                        [result(0), result(0), result(2, "failed")]):  # one read twice instead of another
            with self.subTest(results=results), self.assertRaises(CliFailure) as failure:
                check_every_result(JOB, results)
            self.assertEqual(failure.exception.exit_code, 7)
            self.assertIn("webcapture job j", str(failure.exception))


if __name__ == "__main__":
    unittest.main()
