"""astream: a run's events in order, the same as its trace and journal say, with the run's result last."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from returns.result import Success

from agentsm_fn import Performers, Shell, StepClock, arun, astream
from agentsm_fn.core import SUSPEND, EffectFailure, Snapshot, Status
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart, RunWatch
from agentsm_fn.shell import redact_credentials, stream
from agentsm_fn.shell.stream_history import history_of
from agentsm_fn.stream import (
    AwaitingOutcome,
    EffectCompleted,
    EffectRequested,
    Failed,
    Finished,
    OutcomeKind,
    RunStarted,
    Transitioned,
)
from tests.core.sample import Ask, Mem, S, routed_sample_machine, sample_machine
from tests.stream.helpers import collect, history, positions, timeless, within


def asking(*answers: object) -> Shell:
    script = iter(answers)
    return Shell(performers=Performers().on(Ask, lambda effect: next(script)), clock=StepClock(start=100.0))


async def test_a_run_streams_its_start_transitions_effects_and_finish_in_order() -> None:
    events = await collect(astream(sample_machine(), Mem(), asking(1, 2, 3), run_id="r1"))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["RunStarted", "Transitioned"] + [
        "EffectRequested",
        "EffectCompleted",
        "Transitioned",
    ] * 3 + [
        "Transitioned",
        "Finished",
    ]
    started = events[0]
    assert isinstance(started, RunStarted)
    assert started == RunStarted(run_id="r1", machine="sample", fingerprint=started.fingerprint, state="IDLE")
    assert positions(events) == list(range(len(events) - 1))
    assert {e.run_id for e in events} == {"r1"}
    first = events[1]
    assert first == Transitioned(
        run_id="r1", position=1, step=1, state="IDLE", event="START", target="WORK", at=100.0
    )
    asked, answered = events[2], events[3]
    assert asked == EffectRequested(run_id="r1", position=2, state="WORK", effect="Ask", summary="Ask")
    assert isinstance(answered, EffectCompleted) and answered.requested == 2
    assert (answered.outcome, answered.note) == (OutcomeKind.OK, "int")
    finished = events[-1]
    assert isinstance(finished, Finished) and (finished.state, finished.steps, finished.position) == (
        "DONE",
        5,
        12,
    )


async def test_each_completion_carries_its_outcome_for_python_consumers_live_and_replayed() -> None:
    events = await collect(astream(sample_machine(), Mem(), asking(1, 2, 3)))
    assert [e.value for e in events if isinstance(e, EffectCompleted)] == [1, 2, 3]
    finished, started = events[-1], events[0]
    assert isinstance(finished, Finished) and isinstance(started, RunStarted)
    replayed = history_of(started, finished.result.unwrap(), redact_credentials)  # type: ignore[attr-defined]
    assert [e.value for e in replayed if isinstance(e, EffectCompleted)] == [1, 2, 3]


async def test_the_last_event_carries_what_arun_returns() -> None:
    events = await collect(astream(sample_machine(), Mem(), asking(1, 2, 3)))
    expected = await arun(sample_machine(), Mem(), asking(1, 2, 3))
    finished = events[-1]
    assert isinstance(finished, Finished) and finished.result == expected
    assert finished.result.unwrap().memory == Mem(n=3, total=6)  # type: ignore[attr-defined]


async def test_the_live_history_is_the_history_the_trace_and_journal_give() -> None:
    events = await collect(
        astream(sample_machine(), Mem(), asking(4, EffectFailure.raised("Ask", ValueError("x"))))
    )
    last = events[-1]
    assert isinstance(last, Failed | Finished)
    result = last.result
    snapshot = result.unwrap() if isinstance(result, Success) else result.failure().snapshot  # type: ignore[attr-defined]
    started = events[0]
    assert isinstance(started, RunStarted)
    assert history(events) == [timeless(e) for e in history_of(started, snapshot, redact_credentials)]


def _boom(effect: Ask) -> int:
    raise ValueError("no numbers today, sk-proj-abcdefghijklmnopqrstuvwx")


async def test_a_failed_effect_the_machine_routes_completes_as_failed_with_its_credentials_redacted() -> None:
    shell = Shell(performers=Performers().on(Ask, _boom))
    events = await collect(astream(routed_sample_machine(), Mem(), shell))
    completed = [e for e in events if isinstance(e, EffectCompleted)]
    assert [c.outcome for c in completed] == [OutcomeKind.FAILED]
    assert "ValueError: no numbers today" in completed[0].note and "sk-proj" not in completed[0].note
    assert isinstance(events[-1], Finished)
    assert positions(events) == list(range(len(events) - 1))


async def test_an_effect_failure_without_a_route_ends_the_run_as_failed_naming_it() -> None:
    events = await collect(astream(sample_machine(), Mem(), Shell(performers=Performers().on(Ask, _boom))))
    assert not [e for e in events if isinstance(e, EffectCompleted)]  # no outcome the run consumed
    failed = events[-1]
    assert isinstance(failed, Failed) and (failed.reason, failed.state, failed.position) == (
        "EffectFailed",
        "WORK",
        3,
    )
    assert "no numbers today" in failed.detail and "sk-proj" not in failed.detail


async def test_a_suspended_run_ends_with_the_suspension_and_the_pending_effect() -> None:
    events = await collect(astream(sample_machine(), Mem(), asking(1, SUSPEND)))
    suspended, waiting = events[-2:]
    assert isinstance(suspended, EffectCompleted) and suspended.outcome is OutcomeKind.SUSPENDED
    assert isinstance(waiting, AwaitingOutcome)
    assert (waiting.effect, waiting.requested, waiting.position) == ("Ask", 5, 6)
    assert (suspended.requested, suspended.position) == (5, 6)
    assert waiting.result.unwrap().status is Status.AWAITING  # type: ignore[attr-defined]


async def test_a_run_from_a_suspended_snapshot_goes_on_at_the_positions_after_its_history() -> None:
    first = await collect(astream(sample_machine(), Mem(), asking(1, SUSPEND)))
    waiting = first[-1]
    assert isinstance(waiting, AwaitingOutcome)
    snapshot: Snapshot[S, Mem] = waiting.result.unwrap()  # type: ignore[attr-defined]
    rest = await collect(astream(sample_machine(), snapshot, asking(2, 3), run_id=first[0].run_id))
    assert isinstance(rest[0], RunStarted) and rest[0].resumed and rest[0].steps == 2
    assert positions(first) + positions(rest)[1:] == list(range(12))
    done = rest[-1]
    assert isinstance(done, Finished)
    started = first[0]
    assert isinstance(started, RunStarted)
    whole = history_of(started, done.result.unwrap(), redact_credentials)  # type: ignore[attr-defined]
    assert history(first) + history(rest)[1:] == [timeless(e) for e in whole]


class _Counting:
    """A user's observer: counts transitions (it must still be told while a stream watches)."""

    def __init__(self) -> None:
        self.transitions = 0
        self.ended = 0

    def run_started(self, start: RunStart) -> RunWatch:
        return self

    def transition(self, *args: object) -> None:
        self.transitions += 1

    def effect_started(self, effect: object, within: EffectWatch | None) -> EffectWatch:
        return _Quiet()

    def run_ended(self, end: RunEnd) -> None:
        self.ended += 1


class _Quiet:
    def effect_ended(self, outcome: object, seconds: float) -> None:
        pass

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        pass


async def test_the_shells_own_observer_is_told_too() -> None:
    counting = _Counting()
    shell = Shell(performers=asking(1, 2, 3).performers, observer=counting)
    events = await collect(astream(sample_machine(), Mem(), shell))
    assert counting.transitions == sum(isinstance(e, Transitioned) for e in events) == 5
    assert counting.ended == 1


async def test_breaking_out_cancels_the_run_like_cancelling_its_task() -> None:
    started, cancelled, never = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def blocked(effect: Ask) -> int:
        started.set()
        try:
            await never.wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return 0

    shell = Shell(performers=Performers().on_async(Ask, blocked))
    async for event in astream(sample_machine(), Mem(), shell):
        if isinstance(event, EffectRequested):
            await within(started.wait(), "the effect starting")
            break
    await within(cancelled.wait(), "the run's cancellation")


async def test_an_exception_in_the_consumer_cancels_the_run_too() -> None:
    cancelled = asyncio.Event()

    async def blocked(effect: Ask) -> int:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return 0

    shell = Shell(performers=Performers().on_async(Ask, blocked))
    with pytest.raises(LookupError):
        async with contextlib.aclosing(astream(sample_machine(), Mem(), shell)) as events:
            async for event in events:
                if isinstance(event, EffectRequested):
                    raise LookupError("the consumer gave up")
    await within(cancelled.wait(), "the run's cancellation")


def test_the_sync_stream_gives_the_same_events() -> None:
    synced = list(stream(sample_machine(), Mem(), asking(1, 2, 3), run_id="r"))
    streamed = asyncio.run(collect(astream(sample_machine(), Mem(), asking(1, 2, 3), run_id="r")))
    assert [timeless(e) for e in synced] == [timeless(e) for e in streamed]


def test_leaving_the_sync_stream_early_cancels_the_run() -> None:
    cancelled: list[bool] = []

    async def blocked(effect: Ask) -> int:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return 0

    for event in stream(sample_machine(), Mem(), Shell(performers=Performers().on_async(Ask, blocked))):
        if isinstance(event, EffectRequested):
            break  # the dropped generator closes, and its run is cancelled on its loop
    assert cancelled == [True]
