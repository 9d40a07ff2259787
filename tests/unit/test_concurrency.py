"""Per-key in-flight limit (docs/api.md#limits) against moto in-process: atomic slots, expiry, release."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from webcapture import concurrency, metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.aws import dynamodb_table
from webcapture.errors import ConcurrencyLimitExceeded, NavigationFailed, UsageExceeded
from webcapture.settings import get_settings


def caller_for(record: api_keys.ApiKeyRecord) -> Caller:
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash)


def item_of(record: api_keys.ApiKeyRecord) -> dict[str, Any]:
    item = dynamodb_table(get_settings().api_keys_table).get_item(
        Key={"keyHash": record.key_hash}, ConsistentRead=True)["Item"]
    return dict(item)


def leases_of(record: api_keys.ApiKeyRecord) -> set[str]:
    return set(item_of(record).get("leases", set()))


def acquire(caller: Caller, request_id: str) -> concurrency.Lease | None:
    """A slot as a request takes it: in the reservation's one write (here of no credits)."""
    lease = concurrency.new_lease(caller, request_id)
    metering.reserve(caller, 0, request_id, lease)
    return lease


def test_default_limit_is_five_then_429_with_retry_after(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=100)
    caller = caller_for(record)
    leases = [acquire(caller, f"req-{n}") for n in range(5)]
    with pytest.raises(ConcurrencyLimitExceeded) as refused:
        acquire(caller, "req-6")
    assert refused.value.status == 429 and refused.value.code == "CONCURRENCY_LIMIT_EXCEEDED"
    assert int(refused.value.headers["Retry-After"]) >= 1
    assert len(leases_of(record)) == 5
    concurrency.release(leases[0])
    assert acquire(caller, "req-7") is not None  # a released slot is free again
    assert item_of(record)["remaining"] == 100  # slots are not credits


def test_max_concurrency_on_the_record_wins(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=2)
    caller = caller_for(record)
    acquire(caller, "a")
    acquire(caller, "b")
    with pytest.raises(ConcurrencyLimitExceeded):
        acquire(caller, "c")
    api_keys.update_limits(record, max_concurrency=3)
    assert acquire(caller, "c") is not None


def test_concurrent_acquisition_from_threads_never_exceeds_the_limit(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=5)
    caller = caller_for(record)
    start = threading.Barrier(40)

    def attempt(n: int) -> bool:
        start.wait()
        try:
            acquire(caller, f"req-{n}")
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
    lease = acquire(caller_for(record), "next-request")
    assert lease is not None
    assert leases_of(record) == {lease.element}
    # The dead request's charge marker went with its lease; the live one's was set in the same write.
    assert item_of(record)["chargedRequests"] == {"next-request"}


def test_live_lease_is_not_reclaimed(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", max_concurrency=1)
    acquire(caller_for(record), "live")
    with pytest.raises(ConcurrencyLimitExceeded):
        acquire(caller_for(record), "other")


def test_a_retried_acquire_whose_answer_was_lost_holds_one_slot(
    aws_resources: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # botocore resends the very same request; with the slot now full, the condition fails, and the
    # failure's view of the item shows the first attempt went through.
    monkeypatch.setattr(concurrency, "_now_ms", lambda: 1_900_000_000_000)
    _, record = api_keys.create_key("u", "k", max_concurrency=1)
    first = acquire(caller_for(record), "same")
    again = acquire(caller_for(record), "same")
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


def test_a_free_read_runs_while_every_slot_is_taken_and_takes_none(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=10, max_concurrency=1)
    caller = caller_for(record)
    with metering.metered(caller, 1), metering.metered(caller, 0):
        assert len(leases_of(record)) == 1  # only the browser work's
    item = item_of(record)
    assert item["remaining"] == 9 and item["requestCount"] == 2  # the free read is still counted


def test_session_tokens_have_no_per_key_slot(aws_resources: None) -> None:
    session = Caller(user_id="u", kind="session")
    assert all(acquire(session, f"r{n}") is None for n in range(10))
    concurrency.release(None)  # a no-op


def test_a_request_costs_two_writes_the_slot_and_charge_in_one(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=10)
    writes: list[str] = []
    client = dynamodb_table(get_settings().api_keys_table).meta.client
    client.meta.events.register("before-parameter-build.dynamodb.UpdateItem",
                                lambda params, **_: writes.append(params["UpdateExpression"]))
    with metering.metered(caller_for(record), 1):
        assert len(writes) == 1  # slot and charge: one round trip before the work
        assert len(leases_of(record)) == 1 and item_of(record)["remaining"] == 9
    assert len(writes) == 2  # and the release after it
    assert not leases_of(record)


def test_out_of_credits_takes_no_slot(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=0, max_concurrency=1)
    with pytest.raises(UsageExceeded), metering.metered(caller_for(record), 1):
        pytest.fail("no work without credits")
    item = item_of(record)
    assert not item.get("leases") and not item.get("chargedRequests") and item["remaining"] == 0


def test_a_full_key_is_refused_for_concurrency_before_credits(aws_resources: None) -> None:
    _, record = api_keys.create_key("u", "k", remaining=1, max_concurrency=1)
    with metering.metered(caller_for(record), 1), pytest.raises(ConcurrencyLimitExceeded), \
            metering.metered(caller_for(record), 1):
        pytest.fail("the second request must not run")  # full and out of credits: the slot decides


def test_a_key_that_stays_full_is_refused_for_concurrency_when_the_tries_run_out(
    aws_resources: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each try finds expired leases; as soon as they are dropped, other dead containers' take their place
    # (here: the drop never lands). After the last try, the answer is still about the slot, not credits.
    _, record = api_keys.create_key("u", "k", remaining=10, max_concurrency=1)
    dead = concurrency.lease_element("dead-request", 1_000)
    dynamodb_table(get_settings().api_keys_table).update_item(
        Key={"keyHash": record.key_hash}, UpdateExpression="ADD leases :lease",
        ExpressionAttributeValues={":lease": {dead}},
    )
    dropped: list[set[str]] = []
    monkeypatch.setattr(concurrency, "_drop_expired", lambda _key, expired: dropped.append(expired))
    with pytest.raises(ConcurrencyLimitExceeded), metering.metered(caller_for(record), 1):
        pytest.fail("no work without a slot")
    assert len(dropped) == 3 and item_of(record)["remaining"] == 10
