"""`webcapture profiles list|create|show|rename|delete|import`: the profiles that keep a logged-in session
(the service's docs/profiles.md), and the functions behind them for a program's own use.

There is no command, function or tool that reads a profile's state back: the API answers metadata only.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

from webcapture_client.http import CliFailure, call
from webcapture_client.jobs import data_of, where


def _path(profile_id: str, suffix: str = "") -> str:
    return f"/v1/profiles/{quote(profile_id, safe='')}{suffix}"


def list_profiles(api_url: str, api_key: str) -> list[dict[str, Any]]:
    profiles: list[dict[str, Any]] = data_of(call(api_url, api_key, "/v1/profiles", None))["profiles"]
    return profiles


def create_profile(api_url: str, api_key: str, name: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, "/v1/profiles", {"name": name}))


def get_profile(api_url: str, api_key: str, profile_id: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(profile_id), None))


def rename_profile(api_url: str, api_key: str, profile_id: str, name: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(profile_id), {"name": name}, method="PATCH"))


def delete_profile(api_url: str, api_key: str, profile_id: str) -> dict[str, Any]:
    return data_of(call(api_url, api_key, _path(profile_id), None, method="DELETE"))


def import_state(api_url: str, api_key: str, profile_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """A Playwright storage state (`context.storage_state()`) becomes the profile's state."""
    return data_of(call(api_url, api_key, _path(profile_id, "/state"), state, method="PUT"))


def _show(profile: dict[str, Any]) -> None:
    warning = profile.get("warning")
    if warning:
        print(f"webcapture: warning: {warning}", file=sys.stderr)
    print(json.dumps({k: v for k, v in profile.items() if k != "warning"}, indent=2, ensure_ascii=False))


def _run(args: argparse.Namespace) -> int:
    api_url, api_key = where(args)
    action = args.profiles_action
    if action == "list":
        for profile in list_profiles(api_url, api_key):
            print(f"{profile['profileId']}\t{profile['name']}\tv{profile['version']}\t"
                  f"{','.join(profile['origins'])}")
    elif action == "create":
        _show(create_profile(api_url, api_key, args.name))
    elif action == "show":
        _show(get_profile(api_url, api_key, args.id))
    elif action == "rename":
        _show(rename_profile(api_url, api_key, args.id, args.name))
    elif action == "delete":
        delete_profile(api_url, api_key, args.id)
        print(f"webcapture: deleted {args.id}", file=sys.stderr)
    else:
        text = sys.stdin.read() if args.file == "-" else Path(args.file).read_text(encoding="utf-8")
        state = json.loads(text)
        if not isinstance(state, dict):
            raise CliFailure("the state file must hold a JSON object (Playwright's storage state)", 2)
        _show(import_state(api_url, api_key, args.id, state))
    return 0


def add_profile_commands(commands: Any, where_parser: argparse.ArgumentParser) -> None:
    profiles = commands.add_parser("profiles", help="profiles: logged-in sessions kept for --profile")
    actions = profiles.add_subparsers(dest="profiles_action", required=True, metavar="ACTION",
                                      help="list, create, show, rename, delete or import")
    actions.add_parser("list", parents=[where_parser],
                       help="your profiles (id<TAB>name<TAB>version<TAB>sites)")
    create = actions.add_parser("create", parents=[where_parser], help="a new profile (no session yet)")
    create.add_argument("name", help="the profile's name (1 to 100 characters)")
    show = actions.add_parser("show", parents=[where_parser], help="a profile's metadata (never its state)")
    show.add_argument("id", help="the profile's id (profileId)")
    rename = actions.add_parser("rename", parents=[where_parser], help="rename a profile")
    rename.add_argument("id", help="the profile's id (profileId)")
    rename.add_argument("name", help="its new name (1 to 100 characters)")
    delete = actions.add_parser("delete", parents=[where_parser], help="delete a profile and its state")
    delete.add_argument("id", help="the profile's id (profileId)")
    imported = actions.add_parser("import", parents=[where_parser],
                                  help="a login made elsewhere: a Playwright storage state file (or -)")
    imported.add_argument("id", help="the profile's id (profileId)")
    imported.add_argument("file", help="the JSON of context.storage_state(), at most 1 MB; - for stdin")
    profiles.set_defaults(run=_run)
