"""The local API's Lambda runtime: separate warm containers (processes) per function, as Lambda runs them."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from localapi.cfn_template import FunctionSpec
from localapi.lambda_runtime import ContainerDied, FunctionContainers, FunctionError, InvocationTimeout
from webcapture.browser.launch import processes

PROBE = Path(__file__).resolve().parents[1] / "support" / "lambda_probe"


def probe_spec(timeout_s: int = 7) -> FunctionSpec:
    return FunctionSpec(logical_id="ProbeFunction", code_uri=PROBE, handler="app.lambda_handler",
                        timeout_s=timeout_s, memory_mb=256, environment={})


@pytest.fixture
def make_pool() -> Iterator[Callable[..., FunctionContainers]]:
    made: list[FunctionContainers] = []

    def make(timeout_s: int = 7, max_containers: int = 10) -> FunctionContainers:
        made.append(FunctionContainers(probe_spec(timeout_s), max_containers))
        return made[-1]

    yield make
    for pool in made:
        pids = pool.pids()
        pool.shutdown()
        for pid in pids:  # every container process is gone (and reaped) after shutdown
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)


@pytest.fixture
def containers(make_pool: Callable[..., FunctionContainers]) -> FunctionContainers:
    return make_pool()


def invoke_all(pool: FunctionContainers, events: list[dict[str, Any]]) -> list[Any]:
    with ThreadPoolExecutor(len(events)) as threads:
        return list(threads.map(pool.invoke, events))


def test_a_container_stays_warm_and_keeps_its_globals(containers: FunctionContainers) -> None:
    first, second = containers.invoke({}), containers.invoke({})
    assert first["pid"] == second["pid"] != os.getpid()
    assert (first["invocations"], second["invocations"]) == (1, 2)


def test_remaining_time_comes_from_the_function_timeout(containers: FunctionContainers) -> None:
    answer = containers.invoke({})
    assert 5_000 < answer["remainingMs"] <= 7_000
    assert answer["function"] == "ProbeFunction"


def test_concurrent_invocations_run_in_separate_containers(containers: FunctionContainers,
                                                          tmp_path: Path) -> None:
    answers = invoke_all(containers, [{"barrier": str(tmp_path), "parties": 3}] * 3)
    assert len({a["pid"] for a in answers}) == 3
    assert all(a["invocations"] == 1 for a in answers)  # each its own module globals
    # Idle again, they are reused rather than multiplied.
    again = invoke_all(containers, [{}] * 3)
    assert {a["pid"] for a in again} <= {a["pid"] for a in answers}


def test_no_more_containers_than_the_cap(make_pool: Callable[..., FunctionContainers]) -> None:
    containers = make_pool(max_containers=2)
    answers = invoke_all(containers, [{"sleep": 0.3}] * 6)
    assert len(answers) == 6
    assert len({a["pid"] for a in answers}) <= 2
    assert len(containers.pids()) <= 2


def test_a_killed_container_fails_its_invocation_and_is_replaced(containers: FunctionContainers) -> None:
    before = containers.invoke({})["pid"]
    with pytest.raises(ContainerDied):
        containers.invoke({"die": True})
    after = containers.invoke({})
    assert after["pid"] != before and after["invocations"] == 1
    assert containers.pids() == [after["pid"]]


def test_a_container_killed_while_idle_is_not_reused(containers: FunctionContainers) -> None:
    before = containers.invoke({})["pid"]
    os.kill(before, signal.SIGKILL)
    while processes.state(before) not in (None, "Z"):  # the signal is delivered asynchronously
        time.sleep(0.01)
    assert containers.invoke({})["pid"] != before


def test_a_handler_error_is_reported_and_the_container_survives(containers: FunctionContainers) -> None:
    pid = containers.invoke({})["pid"]
    with pytest.raises(FunctionError, match="Unauthorized"):
        containers.invoke({"raise": "Unauthorized"})
    assert containers.invoke({})["pid"] == pid


def test_an_invocation_past_the_function_timeout_ends_its_container(
        make_pool: Callable[..., FunctionContainers]) -> None:
    containers = make_pool(timeout_s=1)
    with pytest.raises(InvocationTimeout):
        containers.invoke({"sleep": 5})
    assert containers.pids() == []
    assert containers.invoke({})["invocations"] == 1


def test_a_queued_invocation_the_caller_gave_up_on_never_runs(make_pool: Callable[..., FunctionContainers],
                                                              tmp_path: Path) -> None:
    containers = make_pool(max_containers=1)
    never = tmp_path / "never-ran"
    (tmp_path / "b").mkdir()
    with ThreadPoolExecutor(1) as threads:
        busy = threads.submit(containers.invoke, {"barrier": str(tmp_path / "b"), "parties": 2})
        with pytest.raises(InvocationTimeout):
            containers.invoke({"mark": str(never)}, wait_s=0.2)
        (tmp_path / "b" / "release").touch()  # the second party: the busy invocation finishes
        busy.result()
    # Invocations run in order: once a later one has run, the abandoned one would have run before it.
    containers.invoke({})
    assert not never.exists()
