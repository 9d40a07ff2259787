"""Metering: atomic reservation under concurrency, refunds, and the refusals (401, 429)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from webcapture import metering
from webcapture.auth import api_keys
from webcapture.auth.caller import Caller
from webcapture.errors import NavigationFailed, Unauthorized, UsageExceeded


def caller_for(record: api_keys.ApiKeyRecord, *, limited: bool = True) -> Caller:
    return Caller(user_id=record.user_id, kind="api_key", key_id=record.id, key_hash=record.key_hash,
                  limited=limited)


def stored(record: api_keys.ApiKeyRecord) -> dict[str, object]:
    fresh = api_keys.get_by_hash(record.key_hash)
    assert fresh is not None
    return fresh.public()


def test_fifty_concurrent_requests_never_overspend(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=20)
    caller = caller_for(record)

    def attempt(_: int) -> str:
        try:
            metering.reserve(caller, 1)
            return "ok"
        except UsageExceeded:
            return "429"

    with ThreadPoolExecutor(max_workers=50) as pool:
        outcomes = list(pool.map(attempt, range(50)))
    assert outcomes.count("ok") == 20
    assert outcomes.count("429") == 30
    state = stored(record)
    assert state["remaining"] == 0
    assert state["requestCount"] == 20


def test_concurrent_failures_refund_exactly(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=100)
    caller = caller_for(record)

    def failing(_: int) -> None:
        with pytest.raises(NavigationFailed), metering.metered(caller, 5):
            raise NavigationFailed("boom")

    with ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(failing, range(50)))
    state = stored(record)
    assert state["remaining"] == 100
    assert state["requestCount"] == 50


def test_success_keeps_the_charge_and_stamps_last_request(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=7)
    with metering.metered(caller_for(record), 5) as reservation:
        assert reservation.charged
    state = stored(record)
    assert state["remaining"] == 2 and state["requestCount"] == 1 and state["lastRequest"]


def test_cost_above_remaining_is_429_and_charges_nothing(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=4)
    with pytest.raises(UsageExceeded):
        metering.reserve(caller_for(record), 5)
    assert stored(record)["remaining"] == 4


def test_unlimited_key_counts_but_never_runs_out(aws_resources: None) -> None:
    _, record = api_keys.create_key("user-1", "k")
    for _ in range(3):
        reservation = metering.reserve(caller_for(record, limited=False), 5)
        assert not reservation.charged
    state = stored(record)
    assert state["remaining"] is None and state["requestCount"] == 3


def test_stale_hint_in_either_direction_still_meters_right(aws_resources: None) -> None:
    _, unlimited = api_keys.create_key("user-1", "u")
    _, limited = api_keys.create_key("user-1", "l", remaining=3)
    metering.reserve(caller_for(unlimited, limited=True), 1)
    metering.reserve(caller_for(limited, limited=False), 1)
    assert stored(unlimited)["remaining"] is None
    assert stored(limited)["remaining"] == 2


@pytest.mark.parametrize("kind", ["disabled", "expired", "unknown"])
def test_unusable_keys_are_401(aws_resources: None, kind: str) -> None:
    _, record = api_keys.create_key("user-1", "k", remaining=5,
                                    expires_at="2020-01-01T00:00:00.000Z" if kind == "expired" else None)
    if kind == "disabled":
        api_keys.set_enabled(record, enabled=False)
    if kind == "unknown":
        api_keys.delete_key(record)
    with pytest.raises(Unauthorized):
        metering.reserve(caller_for(record), 1)


def test_session_tokens_are_not_metered(aws_resources: None) -> None:
    reservation = metering.reserve(Caller(user_id="u", kind="session"), 5)
    assert not reservation.charged
    metering.refund(reservation)  # a no-op, not an error
