"""The `webcapture` command as a newcomer meets it: help text on every option and argument, one meaning per
flag name, a bad --body named as such, and quiet when the reader of its output goes away (`| head`)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import unittest
from pathlib import Path

from tests.fake_api import FakeApi, ok
from webcapture_client.cli import build_parser

COMMAND = str(Path(sys.executable).with_name("webcapture"))


def _commands() -> dict[str, argparse.ArgumentParser]:
    subparsers = next(action for action in build_parser()._actions
                      if isinstance(action, argparse._SubParsersAction))
    return dict(subparsers.choices)


def _every_parser() -> dict[str, argparse.ArgumentParser]:
    """Every command and every command's own actions (`profiles create`), by the words that reach them."""
    found: dict[str, argparse.ArgumentParser] = {}
    waiting = list(_commands().items())
    while waiting:
        name, parser = waiting.pop()
        found[name] = parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                waiting += [(f"{name} {sub}", inner) for sub, inner in action.choices.items()]
    return found


class UsageTest(unittest.TestCase):
    def test_every_option_and_argument_of_every_command_has_help(self) -> None:
        missing = [f"{name} {action.option_strings or action.dest}"
                   for name, parser in _every_parser().items() for action in parser._actions
                   if not action.help or action.help == argparse.SUPPRESS]
        self.assertEqual(missing, [])

    def test_help_prints_for_every_command(self) -> None:
        for name in _commands():
            shown = subprocess.run([COMMAND, name, "--help"], capture_output=True, text=True, timeout=60,
                                   check=False)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertIn(f"usage: webcapture {name}", shown.stdout)

    def test_a_flag_name_means_one_thing_across_commands(self) -> None:
        # --wait is "wait for the job to end" wherever it appears; a page's idle time is --wait-time. Every
        # flag sets one setting (--format is the output's format: the image's, the paper's, the pages').
        kinds: dict[str, set[str]] = {}
        settings: dict[str, set[str]] = {}
        for parser in _commands().values():
            for action in parser._actions:
                for flag in action.option_strings:
                    kinds.setdefault(flag, set()).add(type(action).__name__)
                    settings.setdefault(flag, set()).add(action.dest)
        self.assertEqual(kinds["--wait"], {"_StoreTrueAction"})
        self.assertEqual(kinds["--wait-time"], {"_StoreAction"})
        self.assertEqual({flag for flag, dests in settings.items() if len(dests) > 1}, set())

    def test_a_body_that_is_not_json_is_named(self) -> None:
        with FakeApi() as api:
            env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": "wc_test"}
            run = subprocess.run([COMMAND, "markdown", "https://example.com", "--body", '{"maxAge": }'],
                                 env=env, capture_output=True, text=True, timeout=60, check=False)
        self.assertEqual(run.returncode, 2)
        self.assertTrue(run.stderr.startswith("webcapture: --body is not JSON: "), run.stderr)
        self.assertEqual(run.stderr.count("\n"), 1)

    def test_a_reader_that_goes_away_ends_it_quietly(self) -> None:
        links = [{"url": f"https://example.com/page/{i}", "title": f"Page {i}"} for i in range(20_000)]
        with FakeApi() as api:
            api.on("POST /v1/web/links", ok({"links": links}))
            env = {**os.environ, "WEBCAPTURE_API_URL": api.url, "WEBCAPTURE_API_KEY": "wc_test"}
            process = subprocess.Popen([COMMAND, "links", "https://example.com", "--quiet"], env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            assert process.stdout is not None and process.stderr is not None
            first = process.stdout.readline()
            process.stdout.close()  # what `| head -1` does once it has its line
            errors = process.stderr.read()
            code = process.wait(timeout=60)
        self.assertTrue(first.startswith("https://example.com/page/0"), first)
        self.assertEqual((code, errors), (0, ""))


if __name__ == "__main__":
    unittest.main()
