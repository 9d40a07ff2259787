"""Per-key in-flight limit (CONTRACT 16) against moto in-process: atomic slots, expiry, release."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from webcapture import concurrency, metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.errors import ConcurrencyLimitExceeded, NavigationFailed
from webcapture.settings import get_settings


def caller_for(record: api_keys.ApiKeyRecord) -> Caller:
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash)


def item_of(record: api_keys.ApiKeyRecord) -> dict[str, Any]:
    item = dynamodb_table(get_settings().api_keys_table).get_item(
        Key={"keyHash": record.key_hash}, ConsistentRead=True)["Item"]
    return dict(item)


def leases_of(record: api_keys.ApiKeyRecord) -> set[str]:
    return set(item_of(record).get("leases", set()))


def test_default_limit_is_five_then_429_with_retry_after(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=100)
    caller = caller_for(record)
    leases = [concurrency.acquire(caller, f"req-{n}") for n in range(5)]
    with pytest.raises(ConcurrencyLimitExceeded) as refused:
        concurrency.acquire(caller, "req-6")
    assert refused.value.status == 429 and refused.value.code == "CONCURRENCY_LIMIT_EXCEEDED"
    assert int(refused.value.headers["Retry-After"]) >= 1
    assert len(leases_of(record)) == 5
    concurrency.release(leases[0])
    assert concurrency.acquire(caller, "req-7") is not None  # a released slot is free again
    assert item_of(record)["remaining"] == 100  # slots are not credits


def test_max_concurrency_on_the_record_wins(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=2)
    caller = caller_for(record)
    concurrency.acquire(caller, "a")
    concurrency.acquire(caller, "b")
    with pytest.raises(ConcurrencyLimitExceeded):
        concurrency.acquire(caller, "c")
    api_keys.update_limits(record, max_concurrency=3)
    assert concurrency.acquire(caller, "c") is not None


def test_concurrent_acquisition_from_threads_never_exceeds_the_limit(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=5)
    caller = caller_for(record)
    start = threading.Barrier(40)

    def attempt(n: int) -> bool:
        start.wait()
        try:
            concurrency.acquire(caller, f"req-{n}")
            return True
        except ConcurrencyLimitExceeded:
            return False

    with ThreadPoolExecutor(max_workers=40) as pool:
        outcomes = list(pool.map(attempt, range(40)))
    assert outcomes.count(True) == 5
    assert len(leases_of(record)) == 5


def test_expired_leases_of_a_killed_container_are_reclaimed(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=1)
    # What a container killed mid-request leaves behind: a lease (long expired) and its charge marker.
    dead = concurrency.lease_element("dead-request", 1_000)
    dynamodb_table(get_settings().api_keys_table).update_item(
        Key={"keyHash": record.key_hash},
        UpdateExpression="ADD leases :lease, chargedRequests :marker",
        ExpressionAttributeValues={":lease": {dead}, ":marker": {"dead-request"}},
    )
    lease = concurrency.acquire(caller_for(record), "next-request")
    assert lease is not None
    assert leases_of(record) == {lease.element}
    assert "chargedRequests" not in item_of(record)


def test_live_lease_is_not_reclaimed(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=1)
    concurrency.acquire(caller_for(record), "live")
    with pytest.raises(ConcurrencyLimitExceeded):
        concurrency.acquire(caller_for(record), "other")


def test_a_retried_acquire_whose_answer_was_lost_holds_one_slot(
    aws_resources: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore resends the very same request; with the slot now full, the condition fails, and the
    # failure's view of the item shows the first attempt went through.
    monkeypatch.setattr(concurrency, "_now_ms", lambda: 1_900_000_000_000)
    _, record = api_keys.create_key("u", "k", max_concurrency=1)
    first = concurrency.acquire(caller_for(record), "same")
    again = concurrency.acquire(caller_for(record), "same")
    assert first is not None and again is not None and again.element == first.element
    assert leases_of(record) == {first.element}


def test_metered_releases_the_slot_on_success_and_on_exception(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=10, max_concurrency=1)
    caller = caller_for(record)
    with metering.metered(caller, 1):
        assert len(leases_of(record)) == 1
    assert not leases_of(record)
    with pytest.raises(NavigationFailed), metering.metered(caller, 1):
        raise NavigationFailed("boom")
    with pytest.raises(KeyboardInterrupt), metering.metered(caller, 1):
        raise KeyboardInterrupt  # even what is not an Exception
    item = item_of(record)
    assert not item.get("leases") and not item.get("chargedRequests")
    assert item["remaining"] == 9


def test_a_refused_request_takes_no_credit(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=10, max_concurrency=1)
    caller = caller_for(record)
    with metering.metered(caller, 1), pytest.raises(ConcurrencyLimitExceeded), metering.metered(caller, 1):
        pytest.fail("the second request must not run")
    item = item_of(record)
    assert item["remaining"] == 9 and item["requestCount"] == 1


def test_session_tokens_have_no_per_key_slot(aws_resources: None) -> None:
    session = Caller(user_id="u", kind="session")
    assert all(concurrency.acquire(session, f"r{n}") is None for n in range(10))
    concurrency.release(None)  # a no-op
