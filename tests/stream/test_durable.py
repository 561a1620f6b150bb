"""Durable runs as streams: live events are the events the journal gives; a stored run streams on."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import TypeVar

import attrs
import pytest
from returns.result import Failure, Success

from agentsm_fn import Performers, Shell, StepClock
from agentsm_fn.durable import Durable, RunStatus, SqliteStore, StoredRun, stored_events
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.stream import (
    AwaitingOutcome,
    EffectCompleted,
    EffectRequested,
    Failed,
    Finished,
    OutcomeKind,
    RunEvent,
    RunStarted,
)
from tests.durable.machines import DURABLE_ORDERS, Lookup, Order, performers
from tests.stream.helpers import collect, history, positions, timeless, within

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


def stored(store: SqliteStore, durable: Durable[StateT, EventT, MemoryT], run_id: str) -> list[RunEvent]:
    return list(stored_events(store, durable, run_id).unwrap())


def _timeless(events: list[RunEvent]) -> list[RunEvent]:
    return [timeless(event) for event in events]


async def test_a_new_durable_run_streams_what_its_journal_gives_and_ends_waiting(store: SqliteStore) -> None:
    events = await collect(DURABLE_ORDERS.astream(store, Order(items=2, approval_over=0), run_id="o1"))
    started = events[0]
    assert (
        isinstance(started, RunStarted) and started.machine == DURABLE_ORDERS.name and started.run_id == "o1"
    )
    suspended, waiting = events[-2:]
    assert isinstance(suspended, EffectCompleted) and suspended.outcome is OutcomeKind.SUSPENDED
    assert isinstance(waiting, AwaitingOutcome) and waiting.effect == "AskApproval"
    result = waiting.result
    assert isinstance(result, Success) and isinstance(result.unwrap(), StoredRun)
    assert result.unwrap().run_id == "o1"
    assert _timeless(events) == _timeless(stored(store, DURABLE_ORDERS, "o1"))


async def test_an_answered_run_streams_its_history_then_goes_on_to_the_end(store: SqliteStore) -> None:
    first = await collect(DURABLE_ORDERS.astream(store, Order(items=2, approval_over=0), run_id="o2"))
    (waiting,) = pending(store).unwrap()
    answer(store, "o2", waiting.seq, True).unwrap()
    events = await collect(DURABLE_ORDERS.astream(store, run_id="o2"))
    assert history(events)[: len(history(first))] == history(first)
    assert positions(events) == list(range(len(positions(events))))
    done = events[-1]
    assert isinstance(done, Finished) and done.state == "DONE"
    assert done.result.unwrap().snapshot.memory.approved is True  # type: ignore[attr-defined]
    assert _timeless(events) == _timeless(stored(store, DURABLE_ORDERS, "o2"))
    approval = next(e for e in events if isinstance(e, EffectRequested) and e.effect == "AskApproval")
    completion = next(
        e for e in events if isinstance(e, EffectCompleted) and e.requested == approval.position
    )
    assert completion.outcome is OutcomeKind.OK  # the answer is history now


async def test_a_reconnecting_consumer_gets_only_what_came_after_its_position(store: SqliteStore) -> None:
    await collect(DURABLE_ORDERS.astream(store, Order(items=3), run_id="o3"))
    whole = stored(store, DURABLE_ORDERS, "o3")
    after = await collect(DURABLE_ORDERS.astream(store, run_id="o3", after=6))
    assert _timeless(after) == _timeless([e for e in whole if e.position > 6])


async def test_checkpoints_do_not_repeat_events(store: SqliteStore) -> None:
    often = attrs.evolve(DURABLE_ORDERS, checkpoint_after=1)
    events = await collect(often.astream(store, Order(items=6), run_id="o4"))
    assert isinstance(events[-1], Finished)
    assert positions(events) == list(range(len(events) - 1))
    assert store.checkpoint("o4").unwrap() is not None
    assert _timeless(events) == _timeless(stored(store, often, "o4"))


def _blocking_at(item: int, started: asyncio.Event, cancelled: asyncio.Event) -> Shell:
    async def lookup(effect: Lookup) -> int:
        if effect.item == item:
            started.set()
            try:
                await asyncio.Event().wait()  # never answers: the consumer leaves first
            except asyncio.CancelledError:
                cancelled.set()
                raise
        return 10 + effect.item

    return Shell(performers().on_async(Lookup, lookup), StepClock(start=1000.0))


async def test_leaving_a_durable_stream_keeps_the_run_stored_and_a_stream_resumes_it(
    store: SqliteStore,
) -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()
    blocking = attrs.evolve(
        DURABLE_ORDERS, shell=lambda: _blocking_at(10, started, cancelled), checkpoint_after=1
    )
    seen: list[RunEvent] = []
    lookups = 0
    async for event in blocking.astream(store, Order(items=12), run_id="o5"):
        seen.append(event)
        if isinstance(event, EffectRequested) and event.effect == "Lookup":
            lookups += 1
            if lookups == 11:
                await within(started.wait(), "the eleventh lookup starting")
                break
    await within(cancelled.wait(), "the run's cancellation")
    assert store.get("o5").unwrap().status is RunStatus.RUNNING  # as a run whose task was cancelled
    assert store.checkpoint("o5").unwrap() is not None  # so the resume below starts from a checkpoint
    events = await collect(DURABLE_ORDERS.astream(store, run_id="o5"))
    assert isinstance(events[-1], Finished)
    assert events[-1].result.unwrap().snapshot.memory.total == sum(10 + i for i in range(12))  # type: ignore[attr-defined]
    assert positions(events) == list(range(len(positions(events))))
    assert _timeless(events) == _timeless(stored(store, DURABLE_ORDERS, "o5"))
    assert history(seen) == history(events)[: len(history(seen))]


async def test_a_run_that_fails_streams_failed_as_its_stored_record_says(store: SqliteStore) -> None:
    no_charging = attrs.evolve(
        DURABLE_ORDERS,
        shell=lambda: Shell(Performers().on(Lookup, lambda effect: 1), StepClock(start=1000.0)),
    )
    events = await collect(no_charging.astream(store, Order(items=1), run_id="o6"))
    failed = events[-1]
    assert isinstance(failed, Failed) and failed.reason == "EffectFailed" and failed.state == "CHARGING"
    assert isinstance(failed.result, Failure)
    assert store.get("o6").unwrap().status is RunStatus.FAILED
    assert _timeless(events) == _timeless(stored(store, no_charging, "o6"))


async def test_a_stored_run_that_cannot_be_read_streams_one_failed_event(store: SqliteStore) -> None:
    (event,) = await collect(DURABLE_ORDERS.astream(store, run_id="nope"))
    assert isinstance(event, Failed) and event.reason == "RunNotFound" and event.run_id == "nope"
