"""Durable runs of a user machine on every store: the same result as an in-memory run, no repeats."""

from __future__ import annotations

import asyncio
from pathlib import Path

import attrs
import pytest
from returns.result import Failure, Success

from agentsm_fn.core import SUSPEND, Status
from agentsm_fn.durable import Durable, NotResumable, RunStatus, RunStore, Stopped
from agentsm_fn.shell import Performers, Shell, StepClock, run
from tests.durable.machines import (
    DURABLE_ORDERS,
    ORDERS,
    AskApproval,
    Charge,
    E,
    Lookup,
    Order,
    S,
    performers,
)
from tests.durable.stores import group_sizes, groups_of


async def _lookup(effect: Lookup) -> int:
    await asyncio.sleep(0)
    return 10 + effect.item


async def _pay(effect: Charge) -> str:
    await asyncio.sleep(0)
    return f"receipt-{effect.item}-{effect.amount}"


def asynchronous() -> Shell:
    """The orders' performers as async ones (an approval suspends)."""
    performers_ = (
        Performers().on_async(Lookup, _lookup).on_async(Charge, _pay).on(AskApproval, lambda e: SUSPEND)
    )
    return Shell(performers_, StepClock())


def counted(tmp_path: Path) -> tuple[Durable[S, E, Order], Path]:
    counts = tmp_path / "counts.txt"
    return attrs.evolve(DURABLE_ORDERS, shell=lambda: Shell(performers(counts), StepClock(start=1.0))), counts


def test_a_durable_run_ends_with_the_memory_of_an_in_memory_run(store: RunStore) -> None:
    plain = run(ORDERS, Order(items=5), Shell(performers(), StepClock())).unwrap()
    stored = DURABLE_ORDERS.start(store, Order(items=5)).unwrap()
    assert stored.finished
    assert stored.snapshot.memory == plain.memory
    record = store.get(stored.run_id).unwrap()
    assert (record.status, record.effects, record.state) == (RunStatus.FINISHED, 10, "DONE")
    assert len(store.journal(stored.run_id).unwrap()) == 10


def test_checkpoints_are_taken_and_a_run_resumes_from_one(store: RunStore, tmp_path: Path) -> None:
    durable, counts = counted(tmp_path)
    durable = attrs.evolve(durable, checkpoint_after=1)
    stored = durable.start(store, Order(items=20, approval_over=0)).unwrap()
    assert stored.snapshot.status is Status.AWAITING
    point = store.checkpoint(stored.run_id).unwrap()
    assert point is not None and point.seq == 40 and point.state == "APPROVING"
    assert store.get(stored.run_id).unwrap().status is RunStatus.WAITING
    before = counts.read_text().count("\n")
    assert before == 40


def test_a_finished_run_is_not_resumed(store: RunStore) -> None:
    stored = DURABLE_ORDERS.start(store, Order(items=1)).unwrap()
    refused = DURABLE_ORDERS.resume(store, stored.run_id)
    assert isinstance(refused, Failure) and isinstance(refused.failure(), NotResumable)


def test_a_performer_that_raises_stops_the_run_as_failed(store: RunStore) -> None:
    def broken() -> Shell:
        def boom(effect: object) -> int:
            raise RuntimeError("price service down")

        from tests.durable.machines import Lookup

        return Shell(performers().on(Lookup, boom), StepClock())

    result = attrs.evolve(DURABLE_ORDERS, shell=broken).start(store, Order(items=2))
    assert isinstance(result, Failure)
    error = result.failure()
    assert isinstance(error, Stopped)
    assert "price service down" in error.describe()
    record = store.get(error.run_id).unwrap()
    assert record.status is RunStatus.FAILED and "price service down" in record.reason
    resumed = DURABLE_ORDERS.resume(store, error.run_id)
    assert isinstance(resumed, Success) and resumed.unwrap().finished


async def test_concurrent_async_runs_commit_their_journals_in_groups_and_end_as_a_sync_run(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    sizes = group_sizes(store, monkeypatch)

    durable = attrs.evolve(DURABLE_ORDERS, shell=asynchronous)
    results = await asyncio.gather(*(durable.astart(store, Order(items=4)) for _ in range(20)))
    plain = run(ORDERS, Order(items=4), Shell(performers(), StepClock())).unwrap()
    for result in results:
        stored = result.unwrap()
        assert stored.finished and stored.snapshot.memory == plain.memory
        rows = store.journal(stored.run_id).unwrap()
        assert [row.seq for row in rows] == list(range(8)) and all(row.outcome for row in rows)
    assert sum(sizes) >= 20 * 4 and max(sizes) > 1  # the charges' started rows and commits, in groups


async def test_a_timed_out_performer_under_arun_is_a_failure_not_kept_when_the_machine_has_no_route(
    store: RunStore,
) -> None:
    import time

    from agentsm_fn.core import EffectFailure
    from tests.durable.machines import Lookup

    def slow() -> Shell:
        def nap(effect: Lookup) -> int:
            time.sleep(1)
            return 1

        return Shell(performers().on(Lookup, nap, timeout=0.01), StepClock())

    result = await attrs.evolve(DURABLE_ORDERS, shell=slow).astart(store, Order(items=1))
    assert isinstance(result, Failure) and "timed out" in result.failure().describe()
    error = result.failure()
    assert isinstance(error, Stopped)
    record = store.get(error.run_id).unwrap()
    assert record.status is RunStatus.FAILED
    assert store.journal(record.run_id).unwrap() == ()  # no route for the failure: not kept, performed again
    assert EffectFailure is not None


def test_the_group_commits_of_closed_event_loops_are_not_kept(store: RunStore) -> None:
    import asyncio

    durable = attrs.evolve(DURABLE_ORDERS, shell=asynchronous)  # async performers: committed in groups
    for _ in range(3):  # each asyncio.run is a new event loop, closed at its end
        assert asyncio.run(durable.astart(store, Order(items=2))).unwrap().finished
    # the last loop's: the closed ones are forgotten when a new loop writes
    assert len(groups_of(store).by_loop) == 1
