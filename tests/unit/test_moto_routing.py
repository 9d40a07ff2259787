"""moto's server with the local API's per-host backend lookup (localapi/moto_routing.py): each service the
local API uses still reaches its own backend, and moto's own lookup runs once per host, not per request."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto.moto_server.werkzeug_app import DomainDispatcherApplication
from moto.server import ThreadedMotoServer

from localapi import moto_routing

_MOTO_OWN = DomainDispatcherApplication.get_backend_for_host


@pytest.fixture()
def server() -> Iterator[str]:
    moto_routing.make_backend_lookup_once_per_host()
    running = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    running.start()
    try:
        yield f"http://127.0.0.1:{running.get_host_and_port()[1]}"
    finally:
        running.stop()


def _client(service: str, endpoint: str) -> Any:
    return boto3.client(service, region_name="us-east-1", endpoint_url=endpoint,  # type: ignore[call-overload]
                        aws_access_key_id="local", aws_secret_access_key="local")


def test_each_service_reaches_its_backend_and_moto_looks_each_host_up_once(
        server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: Counter[str | None] = Counter()

    def counted(self: DomainDispatcherApplication, host: str | None) -> Any:
        looked_up[host] += 1
        return _MOTO_OWN(self, host)

    # What the memo calls on a host it has not seen: moto's own lookup, counted.
    monkeypatch.setattr(moto_routing, "_moto_lookup", counted)
    dynamodb, sqs, s3 = _client("dynamodb", server), _client("sqs", server), _client("s3", server)
    for round_ in range(3):
        dynamodb.create_table(TableName=f"t{round_}", KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
                              BillingMode="PAY_PER_REQUEST")
        sqs.create_queue(QueueName=f"q{round_}")
        s3.create_bucket(Bucket=f"bucket-{round_}")
    assert sorted(dynamodb.list_tables()["TableNames"]) == ["t0", "t1", "t2"]
    assert sorted(url.rsplit("/", 1)[1] for url in sqs.list_queues()["QueueUrls"]) == ["q0", "q1", "q2"]
    assert sorted(bucket["Name"] for bucket in s3.list_buckets()["Buckets"]) == ["bucket-0", "bucket-1", "bucket-2"]
    assert looked_up, "the memo never asked moto"
    assert max(looked_up.values()) == 1, looked_up  # 12 requests, each host looked up by moto once
