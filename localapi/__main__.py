"""`python -m localapi` (what `make dev` runs): serve the API on 127.0.0.1:3000 with a demo API key."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from localapi.lambda_runtime import DEFAULT_MAX_CONTAINERS
from localapi.stack import LocalStack

DEMO_USER = "demo-user"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m localapi", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=3000, help="0 picks a free port")
    parser.add_argument("--aws-port", type=int, default=4566, help="moto server port; 0 picks a free one")
    parser.add_argument("--demo-credits", type=int, default=1000,
                        help="credits of the demo key; -1 for unlimited")
    parser.add_argument("--aws-endpoint", default=None,
                        help="use the moto server running at this URL instead of starting one")
    parser.add_argument("--max-containers", type=int, default=DEFAULT_MAX_CONTAINERS,
                        help="warm containers per function, like Lambda's concurrency (default %(default)s)")
    parser.add_argument("--no-prewarm", action="store_true",
                        help="start no container before the first request of each function")
    parser.add_argument("--parameter", action="append", default=[], metavar="NAME=VALUE",
                        help="a template parameter for this stack (JobsVisibilityTimeout=20, say)")
    parser.add_argument("--json", action="store_true", help="print one JSON line with the addresses and key")
    args = parser.parse_args(argv)

    stack = LocalStack(host=args.host, port=args.port, aws_port=args.aws_port,
                       max_containers=args.max_containers, aws_endpoint=args.aws_endpoint,
                       prewarm=not args.no_prewarm,
                       parameters=dict(p.split("=", 1) for p in args.parameter))
    stack.start()
    # Imported after start(): settings are read from the environment the stack has just set.
    from webcapture.auth.api_keys import create_key

    key, record = create_key(DEMO_USER, "demo key",
                             remaining=None if args.demo_credits < 0 else args.demo_credits)
    if args.json:
        print(json.dumps({"url": stack.url, "aws": stack.aws.endpoint, "apiKey": key, "userId": DEMO_USER,
                          "keyId": record.id, "environment": stack.function_environment()}), flush=True)
    else:
        print(f"webcapture local API on {stack.url} (AWS emulated by moto on {stack.aws.endpoint})")
        print(f"demo API key ({DEMO_USER}, {args.demo_credits} credits): {key}")
        print(f'try: curl -H "Authorization: Bearer {key}" {stack.url}/v1/api-keys/list', flush=True)

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
