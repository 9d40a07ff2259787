"""`webcapture profiles ...` and `--profile` against a loopback API: what is sent, and that nothing reads a
profile's state back."""

from __future__ import annotations

import json
import tempfile
import unittest
from pathlib import Path

from tests.fake_api import FakeApi, ok
from tests.test_cli import webcapture
from webcapture_client.mcp_server.schemas import request_schema

PROFILE = {"profileId": "prf_abc", "name": "work", "version": 2, "origins": ["app.example.com"], "size": 120,
           "createdAt": "2026-11-27T00:00:00.000Z", "updatedAt": "2026-11-27T00:00:00.000Z"}


class ProfilesCliTest(unittest.TestCase):
    def test_each_command_sends_its_route(self) -> None:
        with FakeApi() as api, tempfile.TemporaryDirectory() as folder:
            api.on("POST /v1/profiles", ok(PROFILE, 201))
            api.on("GET /v1/profiles", ok({"profiles": [PROFILE], "total": 1}))
            api.on("PATCH /v1/profiles/prf_abc", ok({**PROFILE, "name": "home"}))
            api.on("DELETE /v1/profiles/prf_abc", ok({"profileId": "prf_abc", "deleted": True}))
            api.on("PUT /v1/profiles/prf_abc/state", ok({**PROFILE, "version": 3}))
            state = Path(folder) / "state.json"
            state.write_text(json.dumps({"cookies": [], "origins": []}))
            runs = [webcapture(api, "profiles", "create", "work"),
                    webcapture(api, "profiles", "list"),
                    webcapture(api, "profiles", "rename", "prf_abc", "home"),
                    webcapture(api, "profiles", "import", "prf_abc", str(state)),
                    webcapture(api, "profiles", "delete", "prf_abc")]
        for run in runs:
            self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual([(seen.method, seen.path) for seen in api.seen], [
            ("POST", "/v1/profiles"), ("GET", "/v1/profiles"), ("PATCH", "/v1/profiles/prf_abc"),
            ("PUT", "/v1/profiles/prf_abc/state"), ("DELETE", "/v1/profiles/prf_abc")])
        self.assertEqual(api.seen[0].body, {"name": "work"})
        self.assertEqual(api.seen[3].body, {"cookies": [], "origins": []})
        self.assertIn("prf_abc\twork\tv2\tapp.example.com", runs[1].stdout)

    def test_a_capture_names_its_profile(self) -> None:
        with FakeApi() as api:
            api.on("POST /v1/web/markdown", ok({"markdown": "# Account"}))
            run = webcapture(api, "markdown", "https://app.example.com/account", "--profile", "prf_abc",
                             "--save-profile", "--quiet")
            refused = webcapture(api, "markdown", "https://app.example.com/", "--save-profile", "--quiet")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(api.seen[0].body["profile"], {"id": "prf_abc", "save": True})
        self.assertEqual(refused.returncode, 2)
        self.assertEqual(len(api.seen), 1)

    def test_a_tool_can_name_a_profile_and_none_reads_one(self) -> None:
        tools = json.loads((Path(__file__).parents[1] / "webcapture_client" / "mcp_server" /
                            "tool_schemas.json").read_text())
        for name in ("markdown", "screenshot", "links", "extract", "content", "pdf", "crawl"):
            schema = request_schema(name)
            self.assertIn("profile", schema["properties"], name)
            self.assertIn('"save"', json.dumps(schema["$defs"]), name)
        self.assertFalse([name for name in tools if "profile" in name])


if __name__ == "__main__":
    unittest.main()
