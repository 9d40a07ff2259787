"""Monitors through the SDK (sync and async) and the `webcapture monitors` command against a loopback API:
every route with what it is sent, typed answers, every check read through every cursor (short and empty
pages included), the errors of the monitor routes as their families and exit codes."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path
from typing import Any

import webcapture_client
from tests.fake_api import FakeApi, check_data, failed, monitor_data, ok, serve_check_pages
from tests.test_cli import webcapture
from webcapture_client import AsyncClient, Client

# Five checks over four pages: one short, one empty but not the last.
PAGES = [[check_data("chk_5", "queued"), check_data("chk_4")], [check_data("chk_3", change="changed")], [],
         [check_data("chk_2", "failed", error={"code": "NAVIGATION_FAILED", "message": "refused"}),
          check_data("chk_1", change="new")]]
EVERY_CHECK = ["chk_5", "chk_4", "chk_3", "chk_2", "chk_1"]


def validation(path: list[str], message: str) -> Any:
    reply = failed(422, "VALIDATION_ERROR", message)
    reply.body["error"] = {"name": "ZodError", "message": f"{'.'.join(path)}: {message}",
                           "issues": [{"code": "custom", "path": path, "message": message}]}
    return reply


class MonitorsSdkTest(unittest.TestCase):
    def client(self, api: FakeApi) -> Client:
        return Client(api_url=api.url, api_key="wc_test", backoff_s=0.01)

    def test_every_route_with_what_it_is_sent(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/monitors", ok(monitor_data(), 201))
            api.on("GET /v1/monitors", ok({"monitors": [monitor_data(), monitor_data(monitorId="mon_2")],
                                           "total": 2}))
            api.on("GET /v1/monitors/mon_1", ok(monitor_data()))
            api.on("PATCH /v1/monitors/mon_1", ok(monitor_data(enabled=False, nextRunAt=None)))
            api.on("POST /v1/monitors/mon_1/run", ok({"monitorId": "mon_1", "checkId": "chk_9",
                                                      "status": "queued"}, 202))
            api.on("DELETE /v1/monitors/mon_1", ok({"monitorId": "mon_1", "deleted": True}))
            client = self.client(api)
            made = client.create_monitor("https://example.com/pricing", "markdown", "rate(1 hour)",
                                         webhook={"url": "https://hooks.example.com/w"})
            listed = client.monitors()
            got = client.get_monitor("mon_1")
            paused = client.update_monitor("mon_1", enabled=False, webhook=None)
            run = client.run_monitor("mon_1")
            deleted = client.delete_monitor("mon_1")
        self.assertEqual([(seen.method, seen.path, seen.body) for seen in api.seen], [
            ("POST", "/v1/monitors", {"url": "https://example.com/pricing", "operation": "markdown",
                                      "schedule": "rate(1 hour)", "webhook": {"url": "https://hooks.example.com/w"}}),
            ("GET", "/v1/monitors", None), ("GET", "/v1/monitors/mon_1", None),
            ("PATCH", "/v1/monitors/mon_1", {"enabled": False, "webhook": None}),
            ("POST", "/v1/monitors/mon_1/run", {}), ("DELETE", "/v1/monitors/mon_1", None)])
        self.assertEqual((made.monitor_id, made.schedule, made.next_run_at),
                         ("mon_1", "rate(1 hour)", "2026-11-27T11:00:00.000Z"))
        self.assertEqual([m.monitor_id for m in listed], ["mon_1", "mon_2"])
        self.assertEqual((got.operation, got.diff), ("markdown", {"threshold": 0.1}))
        self.assertEqual((paused.enabled, paused.next_run_at), (False, None))
        self.assertEqual((run.check_id, run.status), ("chk_9", "queued"))
        self.assertEqual(deleted, {"monitorId": "mon_1", "deleted": True})

    def test_every_check_through_every_cursor(self) -> None:
        with FakeApi() as api:
            serve_check_pages(api, "mon_1", PAGES, 2)
            found = list(self.client(api).monitor_checks("mon_1", page_size=2))
        self.assertEqual([check.check_id for check in found], EVERY_CHECK)
        self.assertEqual(len(api.seen), 4)  # the empty page did not end it: only a null next does
        self.assertEqual((found[0].finished, found[2].change_status, (found[3].error or {}).get("code")),
                         (False, "changed", "NAVIGATION_FAILED"))

    def test_a_cursor_answered_as_its_own_next_is_an_error_not_a_loop(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/monitors/mon_1/checks?limit=100", ok({"monitorId": "mon_1", "checks": [], "next": "c"}))
            api.on("GET /v1/monitors/mon_1/checks?limit=100&cursor=c",
                   ok({"monitorId": "mon_1", "checks": [], "next": "c"}))
            with self.assertRaises(webcapture_client.WebcaptureError) as raised:
                list(self.client(api).monitor_checks("mon_1"))
        self.assertEqual(raised.exception.code, "UNEXPECTED_ANSWER")

    def test_a_run_is_waited_for_until_its_check_has_run(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/monitors/mon_1/checks?limit=100",
                   ok({"monitorId": "mon_1", "checks": [], "next": None}),
                   ok({"monitorId": "mon_1", "checks": [check_data("chk_9", "queued")], "next": None}),
                   ok({"monitorId": "mon_1", "checks": [check_data("chk_9", change="changed")], "next": None}))
            check = self.client(api).wait_for_check("mon_1", "chk_9", poll_s=0.01, timeout_s=30)
        self.assertEqual((check.status, check.change_status, len(api.seen)), ("completed", "changed", 3))

    def test_the_monitor_routes_errors_are_their_families(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/monitors", validation(["schedule"], "rate() is at least once a minute"))
            api.on("GET /v1/monitors/mon_other", failed(404, "NOT_FOUND", "Monitor not found"))
            api.on("POST /v1/monitors/mon_1/run", failed(409, "LIMIT_REACHED"))
            client = self.client(api)
            with self.assertRaises(webcapture_client.ValidationError) as invalid:
                client.create_monitor("https://example.com/", "markdown", "rate(30 seconds)")
            with self.assertRaises(webcapture_client.NotFoundError):
                client.get_monitor("mon_other")
            with self.assertRaises(webcapture_client.InvalidRequestError):
                client.run_monitor("mon_1")
        self.assertEqual(invalid.exception.issues[0]["path"], ["schedule"])


class AsyncMonitorsTest(unittest.IsolatedAsyncioTestCase):
    async def test_the_same_calls_awaited_and_the_checks_iterated(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/monitors", ok(monitor_data(operation="ai-extract"), 201))
            api.on("POST /v1/monitors/mon_1/run", ok({"monitorId": "mon_1", "checkId": "chk_5",
                                                      "status": "queued"}, 202))
            serve_check_pages(api, "mon_1", PAGES, 2)
            client = AsyncClient(api_url=api.url, api_key="wc_test")
            made = await client.create_monitor("https://example.com/pricing", "ai-extract", "rate(1 day)",
                                               request={"prompt": "the price"})
            run = await client.run_monitor(made.monitor_id)
            found = [check.check_id async for check in client.monitor_checks("mon_1", page_size=2)]
        self.assertEqual(api.seen[0].body["request"], {"prompt": "the price"})
        self.assertEqual((made.operation, run.check_id), ("ai-extract", "chk_5"))
        self.assertEqual(found, EVERY_CHECK)


class MonitorsCliTest(unittest.TestCase):
    def test_create_sends_the_flags_as_the_requests_fields(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            schema = Path(folder) / "price.json"
            price = {"type": "object", "properties": {"price": {"type": "number"}}}
            schema.write_text(json.dumps(price))
            api.on("POST /v1/monitors", ok(monitor_data(warning="ignored unknown field 'x'"), 201))
            run = webcapture(api, "monitors", "create", "https://example.com/pricing", "--operation", "ai-extract",
                             "--schedule", "cron(0 9 ? * MON-FRI *)", "--timezone", "Europe/Berlin", "--name",
                             "Pricing", "--webhook", "https://hooks.example.com/w", "--event", "monitor.checked",
                             "--event", "monitor.failed", "--webhook-metadata", '{"team": "web"}',
                             "--prompt", "the team plan's price", "--schema", str(schema), "--wait-for", "main",
                             "--request", '{"timeout": 60000}', "--disabled")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(api.seen[0].body, {
            "url": "https://example.com/pricing", "operation": "ai-extract", "schedule": "cron(0 9 ? * MON-FRI *)",
            "timezone": "Europe/Berlin", "name": "Pricing", "enabled": False,
            "webhook": {"url": "https://hooks.example.com/w", "events": ["monitor.checked", "monitor.failed"],
                        "metadata": {"team": "web"}},
            "request": {"timeout": 60000, "prompt": "the team plan's price", "waitForSelector": "main",
                        "response_format": {"type": "json_schema", "schema": price}}})
        self.assertEqual(json.loads(run.stdout)["monitorId"], "mon_1")
        self.assertEqual(run.stderr, "webcapture: warning: ignored unknown field 'x'\n")

    def test_a_flag_of_another_operation_is_a_usage_error_and_nothing_is_sent(self) -> None:
        with FakeApi() as api:
            run = webcapture(api, "monitors", "create", "https://example.com/", "--operation", "markdown",
                             "--schedule", "rate(1 hour)", "--width", "800")
        self.assertEqual((run.returncode, api.seen), (2, []))
        self.assertEqual(run.stderr, "webcapture: --width is for --operation screenshot monitors, not markdown\n")

    def test_update_puts_the_request_flags_over_the_monitors_own_request(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/monitors/mon_1", ok(monitor_data(operation="screenshot",
                                                             request={"viewport": {"width": 1280, "height": 800},
                                                                      "waitTime": 500})))
            api.on("PATCH /v1/monitors/mon_1", ok(monitor_data(operation="screenshot")))
            run = webcapture(api, "monitors", "update", "mon_1", "--no-full-page", "--height", "600",
                             "--schedule", "rate(2 hours)", "--no-webhook", "--disable", "--threshold", "0.2")
            nothing = webcapture(api, "monitors", "update", "mon_1")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(api.seen[1].body, {
            "schedule": "rate(2 hours)", "diff": {"threshold": 0.2}, "webhook": None, "enabled": False,
            "request": {"viewport": {"width": 1280, "height": 600}, "waitTime": 500,
                        "screenshotOptions": {"fullPage": False}}})
        self.assertEqual((nothing.returncode, len(api.seen)), (2, 2))

    def test_list_get_delete_and_checks_print_json_and_checks_follow_every_cursor(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/monitors", ok({"monitors": [monitor_data()], "total": 1}))
            api.on("GET /v1/monitors/mon_1", ok(monitor_data()))
            api.on("DELETE /v1/monitors/mon_1", ok({"monitorId": "mon_1", "deleted": True}))
            serve_check_pages(api, "mon_1", PAGES, 100)
            runs = [webcapture(api, "monitors", *args) for args in (
                ("list",), ("get", "mon_1"), ("checks", "mon_1"), ("delete", "mon_1"))]
        for run in runs:
            self.assertEqual(run.returncode, 0, run.stderr)
        listed, got, checks, deleted = (json.loads(run.stdout) for run in runs)
        self.assertEqual((listed["total"], got["monitorId"]), (1, "mon_1"))
        self.assertEqual([check["checkId"] for check in checks["checks"]], EVERY_CHECK)
        self.assertEqual(deleted, {"monitorId": "mon_1", "deleted": True})

    def test_checks_limit_reads_only_the_newest(self) -> None:
        with FakeApi() as api:
            api.on("GET /v1/monitors/mon_1/checks?limit=3", ok({"monitorId": "mon_1", "checks": PAGES[0],
                                                                "next": "c1"}))  # short: 2 of 3
            api.on("GET /v1/monitors/mon_1/checks?limit=1&cursor=c1", ok({
                "monitorId": "mon_1", "checks": [check_data("chk_3")], "next": "c2"}))
            run = webcapture(api, "monitors", "checks", "mon_1", "--limit", "3")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([c["checkId"] for c in json.loads(run.stdout)["checks"]], ["chk_5", "chk_4", "chk_3"])
        self.assertEqual(len(api.seen), 2)

    def test_run_wait_prints_the_check_and_a_failed_check_exits_7(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/monitors/mon_1/run", ok({"monitorId": "mon_1", "checkId": "chk_2",
                                                      "status": "queued"}, 202))
            serve_check_pages(api, "mon_1", PAGES, 100)
            run = webcapture(api, "monitors", "run", "mon_1", "--wait", "--quiet")
        self.assertEqual(run.returncode, 7)
        self.assertEqual(json.loads(run.stdout)["checkId"], "chk_2")
        self.assertEqual(run.stderr, "webcapture: check chk_2 failed: NAVIGATION_FAILED: refused\n")

    def test_an_error_is_the_contracts_message_and_its_exit_code(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/monitors", validation(["schedule"], "rate() is at least once a minute"))
            api.on("GET /v1/monitors/mon_other", failed(404, "NOT_FOUND", "Monitor not found"))
            invalid = webcapture(api, "monitors", "create", "https://example.com/", "--operation", "markdown",
                                 "--schedule", "rate(30 seconds)")
            unknown = webcapture(api, "monitors", "get", "mon_other")
        self.assertEqual((invalid.returncode, invalid.stdout), (4, ""))
        self.assertEqual(invalid.stderr,
                         "webcapture: 422 VALIDATION_ERROR: schedule: rate() is at least once a minute\n")
        self.assertEqual((unknown.returncode, unknown.stderr),
                         (4, "webcapture: 404 NOT_FOUND: Monitor not found\n"))


if __name__ == "__main__":
    unittest.main()
