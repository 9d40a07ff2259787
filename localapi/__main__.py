"""`python -m localapi` (what `make dev` runs): serve the API on 127.0.0.1:3000, with moto standing in for
AWS on 127.0.0.1:4566, and a demo API key. `make dev PORT=3301 AWS_PORT=4601` moves both (LocalStack
holds 4566)."""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sys
import threading
from pathlib import Path

from localapi.ports import PortTaken, ensure_free

DEMO_USER = "demo-user"
_KEY_SHAPE = re.compile(r"wc_[A-Za-z]{64}")  # api_keys.generate_key's; that module reads settings too early


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m localapi", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1", help="the address both servers listen on")
    parser.add_argument("--port", type=int, default=3000,
                        help="the API's port (default %(default)s; 0 picks a free one); make dev PORT=...")
    parser.add_argument("--aws-port", type=int, default=4566,
                        help="moto's port, the local AWS (default %(default)s; 0 picks a free one); "
                             "make dev AWS_PORT=...")
    parser.add_argument("--demo-credits", type=int, default=1000,
                        help="credits of the demo key; -1 for unlimited")
    key = parser.add_mutually_exclusive_group()
    key.add_argument("--demo-key", metavar="KEY",
                     help="use this demo key (wc_ and 64 letters) instead of a new one")
    key.add_argument("--demo-key-file", metavar="PATH", type=Path,
                     help="keep the demo key in PATH: read from it when it exists, else a new key written "
                          "there, so the key stays the same across restarts (make dev: .webcapture/demo-key)")
    parser.add_argument("--aws-endpoint", default=None,
                        help="use the moto server running at this URL instead of starting one")
    parser.add_argument("--max-containers", type=int, default=None,
                        help="warm containers per function, like Lambda's concurrency (default 10)")
    warm = parser.add_mutually_exclusive_group()
    warm.add_argument("--no-prewarm", action="store_true",
                      help="start no container before the first request of each function")
    warm.add_argument("--prewarm", action="append", default=None, metavar="FUNCTION",
                      help="start a container before serving for this function only (its logical ID in "
                           "template.yaml, MapFunction say; repeat for more); default: every function")
    parser.add_argument("--metrics", action="store_true",
                        help="print Powertools' CloudWatch metrics (a JSON line per request and page); off "
                             "by default, as the console is for reading")
    parser.add_argument("--parameter", action="append", default=[], metavar="NAME=VALUE",
                        help="a template parameter for this stack (JobsVisibilityTimeout=20, say)")
    parser.add_argument("--schedule-speed", type=_speed, default=1.0, metavar="N",
                        help="run EventBridge Scheduler's schedules N times as fast (a rate(1 minute) fires "
                             "every 60/N s; for tests that wait for firings); default 1, the real timing")
    parser.add_argument("--json", action="store_true", help="print one JSON line with the addresses and key")
    return parser.parse_args(argv)


def _speed(text: str) -> float:
    speed = float(text)
    if not speed > 0:
        raise argparse.ArgumentTypeError(f"{text} is not a speed above 0 (1 is real time)")
    return speed


def _demo_key(args: argparse.Namespace) -> str | None:
    """The demo key to store: the one given, the one kept in the key file, or None for a new one."""
    if args.demo_key:
        return str(args.demo_key)
    path: Path | None = args.demo_key_file
    if path is not None and path.is_file():
        return path.read_text(encoding="utf-8").strip()
    return None


def _keep(path: Path | None, key: str) -> None:
    if path is None or path.is_file():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)  # a credential: readable by its owner only
    path.write_text(key + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if not args.metrics:
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
    try:
        wanted_key = _demo_key(args)
        if wanted_key is not None and not _KEY_SHAPE.fullmatch(wanted_key):
            raise ValueError(f"the demo key {wanted_key[:6]}... is not wc_ and 64 letters "
                             "(delete the key file for a new one)")
        ensure_free(args.host, args.port, "The local API", "--port (make dev PORT=...)")
        if args.aws_endpoint is None:
            ensure_free(args.host, args.aws_port, "The AWS emulator (moto)",
                        "--aws-port (make dev AWS_PORT=...)")
        # The stack (and all it imports, seconds on a busy machine) only once the ports are known to be free,
        # so a taken one is reported at once.
        from localapi.stack import LocalStack

        sizing = {} if args.max_containers is None else {"max_containers": args.max_containers}
        prewarm = () if args.no_prewarm else None if args.prewarm is None else tuple(args.prewarm)
        stack = LocalStack(host=args.host, port=args.port, aws_port=args.aws_port,
                           aws_endpoint=args.aws_endpoint,
                           prewarm=prewarm,
                           parameters=dict(p.split("=", 1) for p in args.parameter),
                           schedule_speed=args.schedule_speed, **sizing)
        stack.start()
    except (PortTaken, ValueError) as refusal:
        print(f"python -m localapi: {refusal}", file=sys.stderr, flush=True)
        return 1
    # Imported after start(): settings are read from the environment the stack has just set.
    from webcapture.auth.api_keys import create_key

    key, record = create_key(DEMO_USER, "demo key", key=wanted_key,
                             remaining=None if args.demo_credits < 0 else args.demo_credits)
    _keep(args.demo_key_file, key)
    if args.json:
        print(json.dumps({"url": stack.url, "aws": stack.aws.endpoint, "apiKey": key, "userId": DEMO_USER,
                          "keyId": record.id, "environment": stack.function_environment()}), flush=True)
    else:
        print(f"webcapture local API on {stack.url} (AWS emulated by moto on {stack.aws.endpoint})")
        kept = f", kept in {args.demo_key_file}" if args.demo_key_file else ""
        print(f"demo API key ({DEMO_USER}, {args.demo_credits} credits{kept}): {key}")
        print(f'try: curl -H "Authorization: Bearer {key}" {stack.url}/v1/api-keys/list')
        print(f"docs: {stack.url}/v1/docs", flush=True)

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
