"""`make bench-moto-queries`: the local API's DynamoDB (moto's server, as `make dev` runs it) reading back a
20,000-page crawl's results, 100 a page, with each partition's key order kept between reads (what the local
API does, localapi/moto_queries.py) against a walk of the partition at every read; the two in turns, in one
run; written to docs/benchmarks.md.

The partition is shaped as a crawl's: its `item#`, `result#` and `url#` items, 60,000 in all, the results
read with the key condition the jobs endpoint uses (`begins_with(sk, "result#")`), page after page through
`LastEvaluatedKey`. Each read of the two sides is checked to return every result once, in order.

    python scripts/bench_moto_queries.py [--pages 20000] [--rounds 3] [--write-docs]
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from localapi import moto_queries  # noqa: E402
from localapi.aws_emulator import AwsEmulator  # noqa: E402
from scripts.benchmark_docs import write_block  # noqa: E402

TABLE = "bench-jobs"
BODY = "x" * 2_000  # a small page's result; the reads compare keys, not bodies


def _fill(client: Any, pages: int) -> None:
    client.create_table(TableName=TABLE, BillingMode="PAY_PER_REQUEST",
                        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"},
                                   {"AttributeName": "sk", "KeyType": "RANGE"}],
                        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                              {"AttributeName": "sk", "AttributeType": "S"}])
    for kind in ("item#", "result#", "url#"):
        for first in range(0, pages, 25):
            client.batch_write_item(RequestItems={TABLE: [
                {"PutRequest": {"Item": {"pk": {"S": "job#bench"}, "sk": {"S": f"{kind}{n:05d}"},
                                         "body": {"S": BODY}}}}
                for n in range(first, min(pages, first + 25))]})


def _read_back(client: Any, pages: int) -> float:
    """Seconds to read every result, 100 a page; checks each came once, in order."""
    arguments: dict[str, Any] = {
        "TableName": TABLE, "Limit": 100, "KeyConditionExpression": "pk = :pk AND begins_with(sk, :r)",
        "ExpressionAttributeValues": {":pk": {"S": "job#bench"}, ":r": {"S": "result#"}}}
    read: list[str] = []
    started = time.perf_counter()
    while True:
        answer = client.query(**arguments)
        read += [item["sk"]["S"] for item in answer["Items"]]
        if "LastEvaluatedKey" not in answer:
            break
        arguments["ExclusiveStartKey"] = answer["LastEvaluatedKey"]
    seconds = time.perf_counter() - started
    if read != [f"result#{n:05d}" for n in range(pages)]:
        raise RuntimeError(f"read back {len(read)} results, not each of {pages} once in order")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's server logs each request otherwise
    emulator = AwsEmulator()
    emulator.start()
    try:
        client = emulator.client("dynamodb")
        _fill(client, args.pages)
        times: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.rounds):
            for keep in (False, True):
                moto_queries.keep_orders = keep
                times[keep].append(_read_back(client, args.pages))
    finally:
        moto_queries.keep_orders = True
        emulator.stop()
    walked, kept = statistics.median(times[False]), statistics.median(times[True])
    text = (f"`python scripts/bench_moto_queries.py --pages {args.pages} --rounds {args.rounds}`: "
            f"{args.pages:,} results of a partition of {3 * args.pages:,} items read back 100 a page "
            f"({-(-args.pages // 100)} queries through moto's server), median of {args.rounds} in turns: "
            f"each read walking the partition {walked:.1f} s, with the key order kept between reads "
            f"{kept:.1f} s ({kept / walked:.2f}x); every result once, in order, both ways. Machine: "
            f"{platform.machine()}, {os.cpu_count()} cores (shared with other work), Python "
            f"{platform.python_version()}.")
    print(text)
    if args.write_docs:
        write_block("moto-queries", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
