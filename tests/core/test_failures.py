"""Every failure value: the right reason, naming the state and event, memory from before kept."""

from __future__ import annotations

import attrs
import pytest
from returns.result import Failure, Result, Success

from agentsm_fn import (
    SUSPEND,
    BadDecision,
    EffectFailed,
    Fault,
    HandlerFaulted,
    HandlerRaised,
    InvalidTransition,
    Machine,
    MissingHandler,
    OutcomeRejected,
    Performers,
    Reason,
    ReplayDiverged,
    RunFailed,
    SafetyCapExceeded,
    Shell,
    Snapshot,
    Status,
    StepClock,
    WrongStatus,
    begin,
    emit,
    replay,
    resume,
    run,
    step,
)
from tests.core.sample import E, Mem, S, sample_machine

Run = Result[Snapshot[S, Mem], RunFailed[S, Mem]]


def failed(result: Run) -> RunFailed[S, Mem]:
    assert isinstance(result, Failure), result
    reason: RunFailed[S, Mem] = result.failure()
    return reason


def shell(value: object = 5) -> Shell:
    return Shell(Performers().on(sample_machine_effect(), lambda _e: value), StepClock())


def sample_machine_effect() -> type:
    from tests.core.sample import Ask

    return Ask


def test_invalid_transition_names_state_and_event_and_keeps_memory() -> None:
    machine = sample_machine().extend(handlers={S.IDLE: lambda m: emit(E.NOWHERE, attrs.evolve(m, n=99))})
    result = failed(run(machine, Mem(n=1), shell()))
    assert result.reason == InvalidTransition(S.IDLE, E.NOWHERE)
    assert result.snapshot.memory == Mem(n=1)
    assert result.snapshot.state is S.IDLE
    assert "IDLE + NOWHERE" in result.describe()


def test_missing_handler_in_an_unvalidated_machine() -> None:
    valid = sample_machine()
    machine: Machine[S, E, Mem] = attrs.evolve(valid, handlers={S.IDLE: valid.handlers[S.IDLE]})
    result = failed(run(machine, Mem(), shell()))
    assert result.reason == MissingHandler(S.WORK)
    assert result.snapshot.state is S.WORK


def test_safety_cap_stops_a_run_that_never_ends() -> None:
    looping = sample_machine().extend(rows={(S.WORK, E.FINISHED): S.WORK}, terminals={S.DONE})
    machine = attrs.evolve(looping, safety_cap=7)
    result = failed(run(machine, Mem(), shell()))
    assert result.reason == SafetyCapExceeded(S.WORK, 7, 7)
    assert result.snapshot.steps == 7


def test_safety_cap_can_depend_on_memory() -> None:
    machine = attrs.evolve(sample_machine(), safety_cap=lambda m: m.n + 2)
    result = failed(run(machine, Mem(), shell()))
    assert isinstance(result.reason, SafetyCapExceeded)
    assert result.reason.cap == 2


def _boom(_m: Mem) -> Result[tuple[E, Mem], Fault]:
    raise ZeroDivisionError("division by zero in handler")


def test_handler_that_raises_on_enter_is_a_failure_value() -> None:
    machine = sample_machine().extend(handlers={S.IDLE: _boom})
    result = failed(run(machine, Mem(n=4), shell()))
    assert result.reason == HandlerRaised(S.IDLE, "enter", "ZeroDivisionError", "division by zero in handler")
    assert result.snapshot.memory == Mem(n=4)


def test_handler_that_raises_on_resume_keeps_the_outcome_in_the_journal() -> None:
    from agentsm_fn import effectful, perform
    from tests.core.sample import Ask

    def receive(_m: Mem, _x: int) -> Result[tuple[E, Mem], Fault]:
        raise KeyError("missing")

    machine = sample_machine().extend(handlers={S.WORK: effectful(lambda m: perform(Ask(), m), receive)})
    result = failed(run(machine, Mem(), shell(41)))
    assert isinstance(result.reason, HandlerRaised)
    assert result.reason.phase == "resume"
    assert result.snapshot.journal.outcomes == (41,)
    assert result.snapshot.status is Status.AWAITING


def test_handler_fault_is_reported_with_its_message() -> None:
    machine = sample_machine().extend(handlers={S.IDLE: lambda _m: Failure(Fault("memory is corrupt"))})
    result = failed(run(machine, Mem(), shell()))
    assert result.reason == HandlerFaulted(S.IDLE, Fault("memory is corrupt"))
    assert "memory is corrupt" in result.describe()


@pytest.mark.parametrize(
    "decision",
    [
        None,
        42,
        Success("not a pair"),
        Success((["unhashable"], Mem())),
        Success(("not-an-enum", Mem())),
        Failure("x"),
    ],
)
def test_bad_decisions_are_failure_values(decision: object) -> None:
    machine = sample_machine().extend(handlers={S.IDLE: lambda _m: decision})  # type: ignore[dict-item, return-value]  # deliberately ill-typed
    result = failed(run(machine, Mem(), shell()))
    assert isinstance(result.reason, BadDecision)
    assert result.reason.state is S.IDLE


def test_outcome_of_the_wrong_type_is_rejected() -> None:
    result = failed(run(sample_machine(), Mem(), shell("five")))
    assert result.reason == OutcomeRejected(S.WORK, "Ask", "str")
    assert result.snapshot.journal.outcomes == ("five",)


def test_missing_performer_fails_with_the_awaiting_snapshot() -> None:
    result = failed(run(sample_machine(), Mem(), Shell(Performers(), StepClock())))
    assert isinstance(result.reason, EffectFailed)
    assert result.snapshot.status is Status.AWAITING
    resumed = run(sample_machine(), result.snapshot, shell(1))
    assert isinstance(resumed, Success)
    assert resumed.unwrap().memory == Mem(n=3, total=3)


def test_performer_that_raises_fails_and_loses_nothing() -> None:
    def broken(_effect: object) -> int:
        raise ConnectionError("network down")

    from tests.core.sample import Ask

    result = failed(run(sample_machine(), Mem(n=2), Shell(Performers().on(Ask, broken), StepClock())))
    assert isinstance(result.reason, EffectFailed)
    assert "ConnectionError: network down" in result.reason.message
    assert result.snapshot.memory == Mem(n=2)


def test_async_performer_in_a_sync_run_is_an_effect_failure() -> None:
    from tests.core.sample import Ask

    async def later(_effect: Ask) -> int:
        return 1

    result = failed(run(sample_machine(), Mem(), Shell(Performers().on(Ask, later), StepClock())))
    assert isinstance(result.reason, EffectFailed)
    assert "use arun" in result.reason.message


def test_wrong_status_for_step_and_resume() -> None:
    machine = sample_machine()
    ready = begin(machine, Mem())
    assert failed(resume(machine, ready, 1, 0.0)).reason == WrongStatus(S.IDLE, Status.AWAITING, Status.READY)
    suspended = run(machine, Mem(), Shell(Performers().on(sample_machine_effect(), lambda _e: SUSPEND)))
    awaiting = suspended.unwrap()
    assert failed(step(machine, awaiting, 0.0)).reason == WrongStatus(S.WORK, Status.READY, Status.AWAITING)


def test_replay_diverges_on_a_journal_from_another_run() -> None:
    machine = sample_machine()
    done = run(machine, Mem(), shell()).unwrap()
    other: Snapshot[S, Mem] = Snapshot(state=S.WORK, memory=Mem(n=3))
    result = failed(replay(machine, other, done.journal))
    assert isinstance(result.reason, ReplayDiverged)


def test_every_reason_describes_itself_in_one_line() -> None:
    reasons: list[Reason] = [
        InvalidTransition(S.IDLE, E.MORE),
        MissingHandler(S.IDLE),
        SafetyCapExceeded(S.IDLE, 3, 3),
        HandlerRaised(S.IDLE, "enter", "KeyError", "k"),
        HandlerFaulted(S.IDLE, Fault("f")),
        BadDecision(S.IDLE, "None"),
        OutcomeRejected(S.IDLE, "Ask", "str"),
        EffectFailed(S.IDLE, "Ask", "m"),
        WrongStatus(S.IDLE, Status.READY, Status.FINISHED),
        ReplayDiverged(3, "m"),
    ]
    for reason in reasons:
        text = reason.describe()
        assert text and "\n" not in text
