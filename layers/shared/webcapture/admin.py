"""`webcapture-admin keys create|list|update|disable|delete`: the operator's commands, which work on the
service's key store directly (the API's users have the `webcapture` client instead, clients/python).

Works against real AWS (credentials and region from the usual AWS environment) or a local emulator
(`--endpoint-url http://127.0.0.1:4566`). The full key is printed once, at creation, and never stored.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from typing import Any

from webcapture import aws, operator_access
from webcapture.auth import api_keys
from webcapture.auth.api_keys import ApiKeyRecord
from webcapture.envelopes import utc_timestamp
from webcapture.settings import get_settings


def _configure(args: argparse.Namespace) -> None:
    operator_access.use_endpoint(args.endpoint_url, args.table)
    get_settings.cache_clear()
    aws.reset_clients()


def _run_keys(args: argparse.Namespace) -> int:
    """A keys command; a failure is one line on stderr and an exit code (webcapture.operator_access)."""
    try:
        _configure(args)
        result: int = args.run(args)
    except ValueError as error:  # --metadata, --expires
        print(f"webcapture-admin: {error}", file=sys.stderr)
        return operator_access.USAGE
    except Exception as error:
        said = operator_access.failure(error, get_settings().api_keys_table)
        if said is None:
            raise
        print(f"webcapture-admin: {said[0]}", file=sys.stderr)
        return said[1]
    return result


def _print(value: Any) -> None:
    print(json.dumps(value, indent=2, default=str))


def _create(args: argparse.Namespace) -> int:
    try:
        metadata = json.loads(args.metadata) if args.metadata else {}
    except json.JSONDecodeError as error:
        raise ValueError(f"--metadata is not JSON: {error}") from None
    if not isinstance(metadata, dict):
        raise ValueError("--metadata must be a JSON object")
    try:
        expires = _iso_utc(args.expires) if args.expires else None
    except ValueError as error:
        raise ValueError(f"--expires is not an ISO 8601 time: {error}") from None
    key, record = api_keys.create_key(args.user, args.name, remaining=args.credits, expires_at=expires,
                                      metadata=metadata, max_concurrency=args.max_concurrency)
    _print({"apiKey": key, "note": "shown once; store it now", **_shown(record)})
    return 0


def _shown(record: ApiKeyRecord) -> dict[str, Any]:
    """What the operator sees of a key: its public record and its in-flight limit."""
    return {**record.public(), "maxConcurrency": record.max_concurrency}


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def _update(args: argparse.Namespace) -> int:
    if args.credits is None and args.max_concurrency is None:
        raise SystemExit("nothing to update: give --credits and/or --max-concurrency")
    record = api_keys.update_limits(_by_id(args.key_id), remaining=args.credits,
                                    max_concurrency=args.max_concurrency)
    _print(_shown(record))
    return 0


def _iso_utc(value: str) -> str:
    """Any ISO 8601 time as the stored form (UTC, ms, Z), which DynamoDB compares as text."""
    moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return utc_timestamp(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


def _list(args: argparse.Namespace) -> int:
    _print([_shown(record) for record in api_keys.list_for_user(args.user)])
    return 0


def _by_id(key_id: str) -> ApiKeyRecord:
    record = api_keys.find_by_id(key_id)
    if record is None:
        raise SystemExit(f"no API key with id {key_id}")
    return record


def _disable(args: argparse.Namespace) -> int:
    api_keys.set_enabled(_by_id(args.key_id), enabled=False)
    print(f"disabled {args.key_id}")
    return 0


def _delete(args: argparse.Namespace) -> int:
    api_keys.delete_key(_by_id(args.key_id))
    print(f"deleted {args.key_id}")
    return 0


def _where(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument("--table", default=default,
                        help="ApiKeys table name (default: $API_KEYS_TABLE; the local stack's with a "
                             "loopback --endpoint-url)")
    parser.add_argument("--endpoint-url", default=default,
                        help="DynamoDB endpoint, e.g. the local API's moto: http://127.0.0.1:4566 (needs no "
                             "AWS credentials or region)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="webcapture-admin",
                                     description="webcapture's operator tools: API keys in the key store")
    _where(parser, None)
    # Accepted after the command too (`webcapture-admin keys list --table T`); SUPPRESS keeps an earlier one.
    where = argparse.ArgumentParser(add_help=False)
    _where(where, argparse.SUPPRESS)
    commands = parser.add_subparsers(dest="group", required=True)
    keys = commands.add_parser("keys", help="manage API keys").add_subparsers(dest="command", required=True)

    create = keys.add_parser("create", parents=[where], help="create a key and print it once")
    create.add_argument("--user", required=True, help="owner's user id")
    create.add_argument("--name", required=True, help="a name to tell the key by (shown in listings)")
    create.add_argument("--credits", type=int, help="remaining credits; omit for unlimited")
    create.add_argument("--expires", help="expiry, ISO 8601 UTC, e.g. 2027-01-01T00:00:00.000Z")
    create.add_argument("--metadata", help="JSON object stored with the key")
    create.add_argument("--max-concurrency", type=_positive,
                        help="requests allowed in flight at once (default 5)")
    create.set_defaults(run=_create)

    update = keys.add_parser("update", parents=[where], help="change a key's credits or in-flight limit")
    update.add_argument("key_id", help="the key's id (its `id` in `keys list`), never the key itself")
    update.add_argument("--credits", type=int, help="set the remaining credits")
    update.add_argument("--max-concurrency", type=_positive, help="requests allowed in flight at once")
    update.set_defaults(run=_update)

    listing = keys.add_parser("list", parents=[where], help="a user's keys")
    listing.add_argument("--user", required=True, help="the owner's user id")
    listing.set_defaults(run=_list)

    for name, run in (("disable", _disable), ("delete", _delete)):
        sub = keys.add_parser(name, parents=[where], help=f"{name} a key by its id")
        sub.add_argument("key_id", help="the key's id (its `id` in `keys list`), never the key itself")
        sub.set_defaults(run=run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return _run_keys(args)


if __name__ == "__main__":
    sys.exit(main())
