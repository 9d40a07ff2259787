"""A credit write that reached DynamoDB but whose answer was lost is retried by botocore itself, and must
charge (or refund) once (docs/benchmarks.md, "Soak").

moto's server runs over HTTP behind AwsFaultProxy, which lets the write through and then drops the
connection before the answer; botocore's standard retry mode sends the same UpdateItem again. A charge
of `remaining - :cost` without the per-request marker would take the credit twice on such a retry (under
load, a 10 s read timeout or a dropped connection is enough).
"""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
import requests
from botocore.exceptions import BotoCoreError
from moto.server import ThreadedMotoServer

from localapi.aws_emulator import create_template_resources
from localapi.cfn_template import Resolver, load_template
from tests.conftest import TABLES
from tests.support.aws_fault_proxy import AwsFaultProxy
from webcapture import aws, metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.errors import NavigationFailed


@pytest.fixture
def dynamodb(settings_env: pytest.MonkeyPatch) -> Iterator[AwsFaultProxy]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    moto_endpoint = f"http://127.0.0.1:{server.get_host_and_port()[1]}"
    proxy = AwsFaultProxy(moto_endpoint)
    proxy.start()
    # moto's data lives in this process: start from none, leave none for the next test.
    requests.post(f"{moto_endpoint}/moto-api/reset", timeout=10)
    try:
        template = load_template()
        create_template_resources(boto3.client("dynamodb", endpoint_url=moto_endpoint),
                                  boto3.client("s3", endpoint_url=moto_endpoint), template,
                                  Resolver(template, physical_names=TABLES))
        settings_env.setenv("AWS_ENDPOINT_URL_DYNAMODB", proxy.endpoint)
        aws.reset_clients()
        yield proxy
    finally:
        aws.reset_clients()
        requests.post(f"{moto_endpoint}/moto-api/reset", timeout=10)
        proxy.stop()
        server.stop()


def caller_for(record: api_keys.ApiKeyRecord) -> Caller:
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash,
                  limited=True)


def remaining(record: api_keys.ApiKeyRecord) -> int:
    fresh = api_keys.get_by_hash(record.key_hash)
    assert fresh is not None
    return int(fresh.public()["remaining"])


def test_a_charge_whose_answer_was_lost_is_retried_and_charged_once(dynamodb: AwsFaultProxy) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    # The request's first UpdateItem takes its slot and charges it; its first answer and its retry's are lost.
    dynamodb.lose_answers(2, "UpdateItem")
    with metering.metered(caller_for(record), 1):
        pass
    assert dynamodb.lost == 2
    assert remaining(record) == 9


def test_a_refund_whose_answer_was_lost_is_retried_and_refunds_once(dynamodb: AwsFaultProxy) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    with pytest.raises(NavigationFailed), metering.metered(caller_for(record), 1):
        dynamodb.lose_answers(1, "UpdateItem")  # the refund's
        raise NavigationFailed("the capture failed")
    assert dynamodb.lost == 1
    assert remaining(record) == 10


def test_a_charge_that_went_through_with_every_answer_lost_is_given_back(dynamodb: AwsFaultProxy) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=10)
    # All four attempts of the slot-and-charge write (botocore retries 3 times): the first went through.
    dynamodb.lose_answers(4, "UpdateItem")
    with pytest.raises(BotoCoreError), metering.metered(caller_for(record), 1):
        pytest.fail("the work must not run without a confirmed charge")
    assert dynamodb.lost == 4
    assert remaining(record) == 10  # the request answers 503 and keeps its credit
