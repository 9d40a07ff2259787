"""The CLI refuses to end quietly with fewer results than the job counts: a lost page is an error."""

from __future__ import annotations

import unittest
import unittest.mock

from tests.fake_api import FakeApi, failed, ok
from webcapture_client import jobs
from webcapture_client.http import CliFailure
from webcapture_client.jobs import check_every_result, follow

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


    def test_a_wait_outlasts_a_busy_moment_but_not_a_refusal(self) -> None:
        ended = {**JOB, "total": 3, "cancelled": 0, "next": None,
                 "results": [result(0), result(1), result(2, "failed")]}
        with FakeApi() as api, unittest.mock.patch.object(jobs, "READ_BACKOFF_S", 0.01):
            api.on("GET /v1/jobs/j?limit=1", failed(504, "NAVIGATION_TIMEOUT"), failed(503, "SERVICE_UNAVAILABLE"),
                   ok(ended))
            api.on("GET /v1/jobs/j?limit=100", ok(ended))
            job, results = follow(api.url, "wc_test", "j", wait=True, quiet=True)
            self.assertEqual((job["status"], len(results)), ("completed", 3))
            self.assertEqual(len(api.seen), 4)  # two failed reads, retried, then the job and its one page
            api.on("GET /v1/jobs/other?limit=1", failed(404, "NOT_FOUND"))
            with self.assertRaises(CliFailure):
                follow(api.url, "wc_test", "other", wait=True, quiet=True)
            self.assertEqual(len(api.seen), 5)  # a refusal is not retried


if __name__ == "__main__":
    unittest.main()
