"""The teams handlers: every outcome a child can end with maps to a declared event, and merge is applied."""

from __future__ import annotations

import enum

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure

from agentsm_fn import EffectFailure, Perform, define_machine, emit
from agentsm_fn.durable import from_bytes, to_bytes
from agentsm_fn.teams import (
    ChildCancelled,
    ChildFailed,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Delegating,
    Gathered,
    GatherPolicy,
    delegate,
    fan_out,
)


class C(enum.Enum):
    WORK = 1
    DONE = 2
    REFUSED = 3


class CE(enum.Enum):
    FINISH = 1
    REFUSE = 2


class Ev(enum.Enum):
    ANSWERED = 1
    DECLINED = 2
    BROKE = 3
    STOPPED = 4


CHILD = define_machine(
    states=C,
    events=CE,
    initial=C.WORK,
    terminals={C.DONE, C.REFUSED},
    table={(C.WORK, CE.FINISH): C.DONE, (C.WORK, CE.REFUSE): C.REFUSED},
    handlers={C.WORK: lambda n: emit(CE.FINISH if n >= 0 else CE.REFUSE, n)},
)

Memory = tuple[object, ...]
"""A parent memory in these tests: the outcomes merged so far, in order."""


def _merged(memory: Memory, outcome: object) -> Memory:
    return (*memory, outcome)


HANDLER = delegate(
    program="tests.teams:CHILD",
    child=CHILD,
    start=len,
    ends={C.DONE: Ev.ANSWERED, C.REFUSED: Ev.DECLINED},
    failed=Ev.BROKE,
    cancelled=Ev.STOPPED,
    merge=_merged,
)

_ids = st.text("abc0123.", min_size=1, max_size=8)
_finished = st.builds(
    ChildFinished,
    run_id=_ids,
    program=st.just("tests.teams:CHILD"),
    state=st.sampled_from(["DONE", "REFUSED"]),
    result=st.integers(),
)
_failed = st.builds(
    ChildFailed, run_id=_ids, program=st.just("tests.teams:CHILD"), reason=st.text(max_size=10)
)
_cancelled = st.builds(ChildCancelled, run_id=_ids, program=st.just("tests.teams:CHILD"))
outcomes: st.SearchStrategy[ChildOutcome] = st.one_of(_finished, _failed, _cancelled)


def test_delegate_requests_one_child_run_from_the_start_memory() -> None:
    decision = HANDLER.enter(("a", "b")).unwrap()
    assert isinstance(decision, Perform)
    assert decision.effect == ChildRun(program="tests.teams:CHILD", memory=2)
    assert decision.memory == ("a", "b")
    assert HANDLER.effects == frozenset({ChildRun}) and HANDLER.effectful and HANDLER.failure_event is None


@given(outcomes, st.lists(st.integers(), max_size=3))
def test_every_child_outcome_maps_to_a_declared_event_and_is_merged(
    outcome: ChildOutcome, before: list[int]
) -> None:
    memory = tuple(before)
    event, after = HANDLER.resume(memory, ChildRun(program="x", memory=0), outcome).unwrap()
    assert HANDLER.events is not None and event in HANDLER.events
    assert after == (*memory, outcome)
    expected = {
        ChildFinished: Ev.ANSWERED if getattr(outcome, "state", "") == "DONE" else Ev.DECLINED,
        ChildFailed: Ev.BROKE,
        ChildCancelled: Ev.STOPPED,
    }[type(outcome)]
    assert event is expected


def test_an_unmapped_end_is_a_fault_naming_it() -> None:
    partial: Delegating[Ev, Memory, C, CE, int] = delegate(
        program="app:C", child=CHILD, start=lambda m: 0, ends={C.DONE: Ev.ANSWERED}
    )
    assert partial.events == frozenset({Ev.ANSWERED})
    for outcome in (
        ChildFinished(run_id="c1", program="app:C", state="REFUSED"),
        ChildFailed(run_id="c1", program="app:C", reason="boom"),
        ChildCancelled(run_id="c1", program="app:C"),
    ):
        result = partial.resume((), ChildRun(program="app:C", memory=0), outcome)
        assert isinstance(result, Failure)
        assert "maps to no event" in result.failure().message and "c1" in result.failure().message


def test_an_outcome_that_is_not_a_child_outcome_is_a_fault() -> None:
    result = HANDLER.resume((), ChildRun(program="x", memory=0), 42)
    assert isinstance(result, Failure) and "int is not a child outcome" in result.failure().message


def test_delegate_carries_what_the_verifier_reads() -> None:
    assert HANDLER.child is CHILD and HANDLER.program == "tests.teams:CHILD"
    assert dict(HANDLER.by_name) == {"DONE": Ev.ANSWERED, "REFUSED": Ev.DECLINED}
    assert (HANDLER.failed, HANDLER.cancelled) == (Ev.BROKE, Ev.STOPPED)
    assert "tests.teams:CHILD" in repr(HANDLER)


def test_a_named_child_run_id_is_requested() -> None:
    named: Delegating[Ev, int, C, CE, int] = delegate(
        program="app:C", child=CHILD, start=lambda m: 0, ends={}, run_id=lambda m: f"child-{m}"
    )
    decision = named.enter(7).unwrap()
    assert isinstance(decision, Perform) and decision.effect == ChildRun(
        program="app:C", memory=0, run_id="child-7"
    )


FAN = fan_out(
    program="tests.teams:CHILD",
    child=CHILD,
    items=lambda m: tuple(range(len(m))),
    all_finished=Ev.ANSWERED,
    some_failed=Ev.BROKE,
    limit=3,
    policy=GatherPolicy.CANCEL_REST,
    merge=_merged,
)


def test_fan_out_requests_one_children_effect() -> None:
    decision = FAN.enter(("x", "y")).unwrap()
    assert isinstance(decision, Perform)
    assert decision.effect == Children(
        program="tests.teams:CHILD", memories=(0, 1), limit=3, policy=GatherPolicy.CANCEL_REST
    )
    assert FAN.effects == frozenset({Children}) and FAN.events == frozenset({Ev.ANSWERED, Ev.BROKE})


def test_fan_out_over_no_items_finishes_at_once() -> None:
    assert FAN.enter(()).unwrap() == (Ev.ANSWERED, (Gathered(),))


@given(st.lists(outcomes, max_size=6))
def test_gathered_outcomes_route_by_whether_all_finished_and_are_merged(found: list[ChildOutcome]) -> None:
    gathered = Gathered(outcomes=tuple(found))
    event, after = FAN.resume((), Children(program="x", memories=()), gathered).unwrap()
    assert FAN.events is not None and event in FAN.events
    assert event is (Ev.ANSWERED if all(isinstance(o, ChildFinished) for o in found) else Ev.BROKE)
    assert after == (gathered,)
    assert (
        len(gathered.results)
        == len(found)
        == len(gathered.failures) + sum(isinstance(o, ChildFinished) for o in found)
    )


def test_fan_out_refuses_a_limit_below_one_and_a_stray_outcome() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        fan_out(
            program="a:b",
            child=CHILD,
            items=lambda m: (),
            all_finished=Ev.ANSWERED,
            some_failed=Ev.BROKE,
            limit=0,
        )
    with pytest.raises(ValueError, match="at least 1"):
        Children(program="a:b", memories=(1,), limit=0)
    result = FAN.resume((), Children(program="x", memories=()), "nope")
    assert isinstance(result, Failure) and "not a gathered outcome" in result.failure().message


def test_a_failed_effect_is_a_failed_child() -> None:
    failure = EffectFailure.raised("ChildRun", LookupError("no program app:gone"))
    outcome = ChildRun(program="app:gone", memory=0, run_id="r.c1").outcome_of_failure(failure)
    assert outcome == ChildFailed(run_id="r.c1", program="app:gone", reason=failure.problem())
    gathered = Children(program="app:gone", memories=(1, 2)).outcome_of_failure(failure)
    assert [type(o) for o in gathered.outcomes] == [ChildFailed, ChildFailed] and not gathered.all_finished


@given(st.lists(outcomes, max_size=4))
def test_outcomes_and_effects_round_trip_through_the_durable_codec(found: list[ChildOutcome]) -> None:
    for value in (
        Gathered(outcomes=tuple(found)),
        *found,
        ChildRun(program="app:C", memory={"n": 1}, run_id=None),
        Children(program="app:C", memories=(1, "two"), limit=2, policy=GatherPolicy.CANCEL_REST),
    ):
        assert from_bytes(to_bytes(value).unwrap(), object).unwrap() == value
