"""explore() on the kit's demo counter: figures, limits, keys, and every kind of violation with its run."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Literal

import pytest
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn import Fault, Perform, define_machine, effectful, emit, fail, perform, pure
from verification.explore import NotEnumerable, Unhashable, explore
from verification.kit import (
    MemoryInvariant,
    Outcomes,
    RunProperty,
    RunViolation,
    memory_invariant,
    responds,
    run_case,
    took,
)
from verification.kit._demo import COUNTER, E, Roll, S, Tally, counted

DICE = Outcomes().on(Roll, lambda e: st.sampled_from((0, 1, 6)))
STARTS = [Tally(limit=n) for n in range(4)]


def test_the_counter_is_explored_to_exhaustion() -> None:
    found = explore(COUNTER, STARTS, DICE)
    assert found.ok and found.exhausted
    assert found.summary().startswith("counter: ") and "exhausted: yes" in found.summary()


def test_a_depth_limit_or_a_state_limit_leaves_the_space_not_exhausted() -> None:
    whole = explore(COUNTER, STARTS, DICE)
    shallow = explore(COUNTER, STARTS, DICE, depth=2)
    assert not shallow.exhausted and shallow.ok and shallow.depth == 2 and shallow.states < whole.states
    capped = explore(COUNTER, STARTS, DICE, max_states=10)
    assert not capped.exhausted and capped.states < whole.states


def test_a_key_merges_memories_that_differ_only_in_what_does_not_matter() -> None:
    whole = explore(COUNTER, STARTS, DICE)
    keyed = explore(COUNTER, STARTS, DICE, key=lambda t: (t.rolls, t.limit, t.total > 0))
    assert keyed.ok and keyed.exhausted and keyed.states < whole.states


def test_a_broken_invariant_comes_with_the_shortest_run() -> None:
    small: MemoryInvariant[Tally] = memory_invariant("the total stays under 12", lambda t: t.total < 12)
    found = explore(COUNTER, STARTS, DICE, [small])
    bad = found.counterexample
    assert bad is not None and bad.reproduced and bad.kind == "invariant"
    assert [p.event for p in bad.path] == ["START", "ROLLED", "ROLLED"]
    assert bad.case.outcomes == (6, 6) and bad.case.memory == Tally(limit=2)
    with pytest.raises(RunViolation, match="the total stays under 12"):
        run_case(COUNTER, bad.case, [small])


def _counted_raising(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
    if roll == 6:
        raise ZeroDivisionError("a six")
    return counted(m, roll)


def _counted_faulting(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
    return fail("no sixes allowed") if roll == 6 else counted(m, roll)


def _counted_stray(m: Tally, roll: int) -> Result[tuple[E, Tally], Fault]:
    if roll == 6:
        return emit(E.START, m)  # START has no row from COUNTING
    return counted(m, roll)


def _counting(m: Tally) -> Result[tuple[Literal[E.ENOUGH], Tally] | Perform[int, Tally], Fault]:
    return emit(E.ENOUGH, m) if m.rolls >= m.limit else perform(Roll(), m)


@pytest.mark.parametrize(
    ("receive", "kind", "says"),
    [
        (_counted_raising, "run-failed", "ZeroDivisionError"),
        (_counted_faulting, "run-failed", "no sixes allowed"),
        (_counted_stray, "no-row", "START is not in the transition table"),
    ],
)
def test_handler_exceptions_faults_and_stray_events_are_violations_with_their_run(
    receive: Callable[[Tally, int], Result[tuple[E, Tally], Fault]], kind: str, says: str
) -> None:
    buggy = COUNTER.extend(handlers={S.COUNTING: effectful(_counting, receive)})
    found = explore(buggy, STARTS, DICE)
    bad = found.counterexample
    assert bad is not None and bad.reproduced, found.summary()
    assert bad.kind == kind and says in bad.message
    assert bad.case.outcomes == (6,) and bad.path[0].event == "START"
    with pytest.raises(RunViolation, match=says):
        run_case(buggy, bad.case)


def test_an_invalid_transition_ends_the_run_on_a_row_that_is_not_there() -> None:
    buggy = COUNTER.extend(handlers={S.COUNTING: effectful(_counting, _counted_stray)})
    bad = explore(buggy, STARTS, DICE).counterexample
    assert bad is not None and bad.kind == "no-row"
    assert bad.path[-1].target == "<no row>" and bad.path[-1].event == "START"


def test_an_event_the_handler_does_not_declare_is_a_violation() -> None:
    quiet = COUNTER.extend(handlers={S.COUNTING: effectful(_counting, counted, events={E.ROLLED, E.ENOUGH})})
    bad = explore(quiet, STARTS, DICE).counterexample
    assert bad is not None and bad.reproduced and bad.kind == "undeclared-event"
    assert "COUNTING emitted ZERO" in bad.message and bad.case.outcomes == (0,)


def test_an_effect_whose_outcomes_cannot_be_listed_is_a_clear_error() -> None:
    endless = Outcomes().on(Roll, lambda e: st.integers())
    with pytest.raises(NotEnumerable, match="give a value list instead"):
        explore(COUNTER, STARTS, endless)


class Two(enum.Enum):
    A = 1
    Z = 2


def _grow(m: list[int]) -> Result[tuple[Literal[Two.A], list[int]], Fault]:
    return emit(Two.A, [*m, 1])


LISTS = define_machine(
    name="lists",
    states=Two,
    events=Two,
    initial=Two.A,
    terminals={Two.Z},
    table={(Two.A, Two.A): Two.Z},
    handlers={Two.A: pure(_grow)},
)


def test_an_unhashable_memory_asks_for_a_key() -> None:
    with pytest.raises(Unhashable, match="pass key="):
        explore(LISTS, [[1, 2]])
    keyed = explore(LISTS, [[1, 2]], key=tuple)
    assert keyed.ok and keyed.exhausted and keyed.states == 2


def test_entries_start_runs_elsewhere_than_the_initial_state() -> None:
    under: MemoryInvariant[Tally] = memory_invariant("the total stays under 7", lambda t: t.total < 7)
    found = explore(COUNTER, [], DICE, [under], entries=[(S.COUNTING, Tally(limit=2))])
    bad = found.counterexample
    assert bad is not None and bad.reproduced and not bad.initial
    assert [p.event for p in bad.path] == ["ROLLED", "ROLLED"] and bad.case.state is S.COUNTING
    assert "run from memory Tally(limit=2) in COUNTING:" in bad.render()
    assert explore(COUNTER, [], DICE, entries=[(S.COUNTING, Tally(limit=2))]).exhausted


def test_an_accepted_failure_ends_a_run_without_a_violation() -> None:
    buggy = COUNTER.extend(handlers={S.COUNTING: effectful(_counting, _counted_faulting)})
    assert explore(buggy, STARTS, DICE).counterexample is not None
    accepted = explore(buggy, STARTS, DICE, accept_failure=lambda f: "no sixes" in f.describe())
    assert accepted.ok and accepted.exhausted


def test_a_run_property_broken_by_an_accepted_failure_is_replayed_too() -> None:
    buggy = COUNTER.extend(handlers={S.COUNTING: effectful(_counting, _counted_faulting)})
    ends: RunProperty[S, Tally] = responds(took(E.START), took(E.ENOUGH, E.ZERO), name="every count ends")
    found = explore(
        buggy, STARTS, DICE, properties=[ends], accept_failure=lambda f: "no sixes" in f.describe()
    )
    bad = found.counterexample
    assert bad is not None and bad.kind == "property" and bad.reproduced
    assert bad.case.outcomes == (6,)
