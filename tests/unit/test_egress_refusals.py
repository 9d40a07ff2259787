"""Refusals are logged as structured events, counted as an EMF metric, and kept for the browser code."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from webcapture.egress import (
    EGRESS_HEADER,
    Refusal,
    RefusalLog,
    check_target,
    egress_outcome,
    refusal_log,
)
from webcapture.egress.refusals import METRIC_NAME, record_refusal
from webcapture.errors import UrlNotAllowed
from webcapture.settings import get_settings


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def log_records() -> Iterator[list[logging.LogRecord]]:
    handler = _Records()
    logger = logging.getLogger(get_settings().service_name)
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def emf_records(output: str) -> list[dict[str, Any]]:
    found = []
    for line in output.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            found.append(json.loads(line))
    return found


def test_a_refusal_is_logged_with_host_address_and_reason(log_records: list[logging.LogRecord]) -> None:
    with pytest.raises(UrlNotAllowed):
        check_target("http://0x7f.1:8080/x")
    events = [r for r in log_records if getattr(r, "event", None) == "egress_refused"]
    assert len(events) == 1
    event = events[0]
    assert event.levelno == logging.WARNING
    assert (event.host, event.port, event.address, event.reason, event.stage) == (  # type: ignore[attr-defined]
        "127.0.0.1",
        8080,
        "127.0.0.1",
        "loopback",
        "edge",
    )


def test_a_refusal_is_counted_as_an_emf_metric(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "egress-tests")
    get_settings.cache_clear()
    try:
        with pytest.raises(UrlNotAllowed):
            check_target("http://169.254.169.254/")
    finally:
        get_settings.cache_clear()
    metrics = [m for m in emf_records(capsys.readouterr().out) if METRIC_NAME in m]
    assert len(metrics) == 1
    metric = metrics[0]
    assert metric[METRIC_NAME] == [1.0] or metric[METRIC_NAME] == 1.0
    assert (metric["reason"], metric["stage"]) == ("link-local", "edge")
    directive = metric["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == "egress-tests"
    assert directive["Metrics"] == [{"Name": METRIC_NAME, "Unit": "Count"}]
    assert set(directive["Dimensions"][0]) >= {"reason", "stage"}
    assert "host" not in directive["Dimensions"][0]  # hosts are unbounded: never a dimension


def test_open_logs_collect_refusals_and_closed_ones_stop() -> None:
    refusal = Refusal(host="127.0.0.1", port=80, address="127.0.0.1", reason="loopback", stage="proxy")
    with refusal_log() as outer:
        with refusal_log() as inner:
            record_refusal(refusal)
        record_refusal(refusal)
    record_refusal(refusal)
    assert (len(inner), len(outer)) == (1, 2)


def test_find_matches_host_and_port_in_any_spelling() -> None:
    log = RefusalLog()
    log.add(Refusal(host="127.0.0.1", port=443, address="127.0.0.1", reason="loopback", stage="proxy"))
    log.add(Refusal(host="internal.test", port=80, address="10.0.0.1", reason="private", stage="proxy"))
    assert log.find("https://0x7f.1/path") is not None  # the canonical host is what was recorded
    assert log.find("https://127.0.0.1:443/") is not None
    assert log.find("http://127.0.0.1/") is None  # another port
    assert log.find("127.0.0.1:443") is not None  # a CONNECT authority
    assert log.find("127.0.0.1") is not None
    found = log.find("http://INTERNAL.test/a")
    assert found is not None and found.reason == "private"
    assert log.find("http://public.test/") is None
    assert log.find("http://exa mple/") is None


def test_the_log_is_safe_to_fill_from_other_threads() -> None:
    refusal = Refusal(host="10.0.0.1", port=80, address="10.0.0.1", reason="private", stage="proxy")
    with refusal_log() as log:

        def fill() -> None:
            for _ in range(50):
                record_refusal(refusal)

        threads = [threading.Thread(target=fill) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(log) == 400


def test_egress_outcome_reads_the_proxy_header_in_any_case() -> None:
    assert egress_outcome({EGRESS_HEADER.lower(): "refused"}) == "refused"
    assert egress_outcome({EGRESS_HEADER.upper(): " Unresolved "}) == "unresolved"
    assert egress_outcome({"content-type": "text/html"}) is None


def test_a_broken_logger_never_breaks_the_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    from webcapture.egress import refusals

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("metrics backend down")

    monkeypatch.setattr(refusals, "_emit_metric", explode)
    with refusal_log() as log, pytest.raises(UrlNotAllowed):
        check_target("http://10.0.0.1/")
    assert len(log) == 1
