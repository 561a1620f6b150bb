"""Regressions from review: nothing raises out of the shell, retried runs replay, step stops at terminals."""

from __future__ import annotations

import asyncio
from typing import ClassVar

import attrs
from returns.result import Failure, Success

from agentsm_fn import (
    SUSPEND,
    EffectFailed,
    OutcomeRejected,
    Performers,
    Shell,
    Snapshot,
    Status,
    StepClock,
    arun,
    begin,
    effectful,
    emit,
    perform,
    replay,
    resume_run,
    run,
    step,
)
from tests.core.sample import Ask, E, Mem, S, sample_machine


def broken_clock() -> float:
    raise OSError("clock device gone")


class ClockAfter:
    """Works for ``good`` readings, then raises."""

    def __init__(self, good: int) -> None:
        self.left = good

    def __call__(self) -> float:
        if self.left == 0:
            raise OSError("clock device gone")
        self.left -= 1
        return 1.0


def test_a_clock_that_raises_ends_the_run_with_a_failure_value() -> None:
    result = run(sample_machine(), Mem(n=1), Shell(Performers().on(Ask, lambda _e: 2), broken_clock))
    assert isinstance(result, Failure)
    reason = result.failure().reason
    assert (
        isinstance(reason, EffectFailed)
        and reason.effect == "clock"
        and "clock device gone" in reason.message
    )
    assert result.failure().snapshot.memory == Mem(n=1)


def test_a_clock_that_raises_after_an_outcome_keeps_the_effect_pending() -> None:
    # reading 1: Idle's tick, reading 2: Work's tick, reading 3 (after the first outcome) raises
    result = run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 2), ClockAfter(2)))
    assert isinstance(result, Failure)
    snapshot = result.failure().snapshot
    assert snapshot.status is Status.AWAITING and snapshot.pending == Ask()
    finished = run(sample_machine(), snapshot, Shell(Performers().on(Ask, lambda _e: 2), StepClock()))
    assert finished.unwrap().memory == Mem(n=3, total=6)


def test_arun_and_resume_run_survive_a_raising_clock() -> None:
    shell = Shell(Performers().on(Ask, lambda _e: 2), broken_clock)
    assert isinstance(asyncio.run(arun(sample_machine(), Mem(), shell)), Failure)
    paused = run(
        sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: SUSPEND), StepClock())
    ).unwrap()
    resumed = resume_run(sample_machine(), paused, 1, shell)
    assert isinstance(resumed, Failure) and isinstance(resumed.failure().reason, EffectFailed)


@attrs.frozen
class Loud(Ask):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)

    def summary(self) -> str:
        raise ZeroDivisionError("summary bug")


def test_an_effect_whose_summary_raises_still_gets_failure_values_and_a_readable_trace() -> None:
    machine = sample_machine().extend(
        handlers={S.WORK: effectful(lambda m: perform(Loud(), m), lambda m, x: emit(E.MORE, m))}
    )
    no_performer = run(machine, Mem(), Shell(Performers(), StepClock()))
    assert isinstance(no_performer, Failure) and no_performer.failure().reason.effect == "Loud"
    wrong_type = run(machine, Mem(), Shell(Performers().on(Loud, lambda _e: "x"), StepClock()))
    assert wrong_type.failure().reason == OutcomeRejected(S.WORK, "Loud", "str")
    assert "request Loud" in wrong_type.failure().snapshot.trace.render()


def test_a_failed_run_retried_from_its_snapshot_replays_to_the_same_end() -> None:
    machine = sample_machine()
    answers = iter(["not a number", 5, 5, 5])
    shell = Shell(Performers().on(Ask, lambda _e: next(answers)), StepClock())
    first = run(machine, Mem(), shell)
    assert isinstance(first, Failure) and isinstance(first.failure().reason, OutcomeRejected)
    done = run(machine, first.failure().snapshot, shell).unwrap()
    assert done.memory == Mem(n=3, total=15)
    assert done.journal.outcomes == ("not a number", 5, 5, 5)
    assert replay(machine, begin(machine, Mem()), done.journal) == Success(done)


def test_step_on_a_ready_snapshot_at_a_terminal_state_finishes_like_run() -> None:
    machine = sample_machine()
    at_end: Snapshot[S, Mem] = Snapshot(state=S.DONE, memory=Mem(n=1))
    stepped = step(machine, at_end, 0.0)
    ran = run(machine, at_end, Shell())
    assert stepped == ran
    assert stepped.unwrap().status is Status.FINISHED
