"""The derived state machine: it drives real handlers and catches every kind of broken rule."""

from __future__ import annotations

from typing import Literal

import attrs
import pytest
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn.core import Fault, Perform, effectful, emit, perform, pure
from verification.kit import (
    CoverageGap,
    MemoryInvariant,
    Outcomes,
    RunViolation,
    TransitionInvariant,
    check_machine,
    derive_state_machine,
    kit_settings,
    memory_invariant,
    transition_invariant,
)
from verification.kit._demo import COUNTER, E, Roll, S, Tally, counted, counters

ROLLS = Outcomes().on(Roll, lambda _: st.integers(0, 6), examples=lambda _: (0, 3))
FAST = kit_settings("ci", max_examples=60, stateful_step_count=12)


def _budget(m: Tally) -> int:
    return m.limit + 1  # COUNTING is visited once per roll and once more to finish


def test_a_correct_machine_passes_with_full_coverage() -> None:
    report = check_machine(COUNTER, counters(), outcomes=ROLLS, budget=_budget, settings=FAST)
    assert report.missing == ()
    assert report.runs > 60
    assert {"IDLE", "COUNTING", "DONE", "ABORTED"} <= set(report.states)


def test_a_broken_memory_invariant_shrinks_to_a_run_with_no_roll_to_spare() -> None:
    # Shrinking stops where no step can be dropped and no outcome made smaller: rolls that sum to 12
    # exactly, none of them 0. Which such run it stops at depends on the first failure found (with 30
    # seeds: 6+6 for 9, 1+5+6 for 12, 1+1+4+6 for 4, ...), so the test asserts that, not one run.
    small: MemoryInvariant[Tally] = memory_invariant("total stays under 12", lambda m: m.total < 12)
    with pytest.raises(RunViolation) as caught:
        check_machine(COUNTER, counters(), invariants=[small], outcomes=ROLLS, budget=_budget, settings=FAST)
    violation = caught.value
    assert violation.kind == "invariant"
    assert [p.event for p in violation.path] == ["START"] + ["ROLLED"] * (len(violation.path) - 1)
    rolls = [int(step.outcomes[0]) for step in violation.path[1:]]
    assert sum(rolls) == 12 and min(rolls) >= 1, rolls  # a smaller roll, or one fewer, keeps it under 12
    assert "total stays under 12" in str(violation)
    assert f"COUNTING --ROLLED--> COUNTING  <= {rolls[-1]}" in str(violation)


def test_a_broken_transition_invariant_names_the_step() -> None:
    only_up: TransitionInvariant[S, Tally] = transition_invariant(
        "rolls grow by at most one", lambda t: t.after.rolls - t.before.rolls < 1
    )
    with pytest.raises(RunViolation) as caught:
        check_machine(
            COUNTER, counters(), invariants=[only_up], outcomes=ROLLS, budget=_budget, settings=FAST
        )
    assert [p.event for p in caught.value.path] == ["START", "ROLLED"]


def test_a_predicate_that_raises_is_a_violation() -> None:
    def boom(m: Tally) -> bool:
        raise KeyError("oops")

    with pytest.raises(RunViolation, match="KeyError"):
        check_machine(COUNTER, counters(), invariants=[memory_invariant("boom", boom)], settings=FAST)


def counted_forgetting_rolls(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
    return emit(E.ROLLED, attrs.evolve(m, total=m.total + roll)) if roll else emit(E.ZERO, m)


def test_a_budgeted_state_that_does_not_consume_its_budget_breaks_the_step_bound() -> None:
    from verification.kit._demo import counting

    leaky = COUNTER.extend(handlers={S.COUNTING: effectful(counting, counted_forgetting_rolls)})
    with pytest.raises(RunViolation) as caught:
        check_machine(leaky, counters(), outcomes=ROLLS, budget=_budget, settings=FAST)
    assert caught.value.kind == "step-bound"
    assert len(caught.value.path) <= 4


def lying_idle(m: Tally) -> Result[tuple[Literal[E.START], Tally], Fault]:
    return emit(E.ZERO, m)  # type: ignore[arg-type]  # the planted bug: an event the annotation denies


def test_an_event_the_handler_does_not_declare_is_caught() -> None:
    lying = COUNTER.extend(rows={(S.IDLE, E.ZERO): S.ABORTED}, handlers={S.IDLE: pure(lying_idle)})
    with pytest.raises(RunViolation) as caught:
        check_machine(lying, counters(), outcomes=ROLLS, settings=FAST)
    assert caught.value.kind == "undeclared-event"
    assert "IDLE emitted ZERO, declares only START" in str(caught.value)


def test_an_event_without_a_row_is_caught() -> None:
    missing = COUNTER.extend(remove_rows=[(S.COUNTING, E.ZERO)])
    with pytest.raises(RunViolation) as caught:
        check_machine(missing, counters(), outcomes=ROLLS, budget=_budget, settings=FAST)
    assert caught.value.kind == "no-row"
    assert caught.value.path[-1].target == "<no row>"
    assert caught.value.path[-1].outcomes == ("0",)


def faulty(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
    return Fault("die broke") if roll == 5 else counted(m, roll)  # type: ignore[return-value]  # planted bug


def test_an_engine_failure_is_a_violation_unless_accepted() -> None:
    from agentsm_fn.core import fail
    from verification.kit._demo import counting

    def breaks_on_five(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
        return fail("die broke") if roll == 5 else counted(m, roll)

    broken = COUNTER.extend(handlers={S.COUNTING: effectful(counting, breaks_on_five)})
    with pytest.raises(RunViolation) as caught:
        check_machine(broken, counters(), outcomes=ROLLS, budget=_budget, settings=FAST)
    assert caught.value.kind == "run-failed"
    assert "die broke" in str(caught.value)
    report = check_machine(
        broken,
        counters(),
        outcomes=ROLLS,
        budget=_budget,
        settings=FAST,
        accept_failure=lambda f: "die broke" in f.describe(),
    )
    assert report.missing == ()


def test_an_effect_loop_without_a_transition_is_caught() -> None:
    def ask_again(
        m: Tally, roll: int
    ) -> Result[tuple[Literal[E.ROLLED], Tally] | Perform[int, Tally], Fault]:
        return perform(Roll(), m)

    def ask(m: Tally) -> Result[tuple[Literal[E.ROLLED], Tally] | Perform[int, Tally], Fault]:
        return perform(Roll(), m)

    looping = COUNTER.extend(handlers={S.COUNTING: effectful(ask, ask_again)})
    with pytest.raises(RunViolation, match="effects without a transition"):
        check_machine(looping, counters(), outcomes=ROLLS, settings=FAST, max_effects=5)


def test_unreached_rows_fail_the_coverage_gate() -> None:
    never_zero = Outcomes().on(Roll, lambda _: st.integers(1, 6))
    with pytest.raises(CoverageGap) as caught:
        check_machine(COUNTER, counters(), outcomes=never_zero, budget=_budget, settings=FAST)
    assert caught.value.missing == (("COUNTING", "ZERO", "ABORTED"),)
    report = check_machine(
        COUNTER, counters(), outcomes=never_zero, settings=FAST, require_all_transitions=False
    )
    assert report.row_coverage == 0.75
    assert "missed: COUNTING --ZERO--> ABORTED" in report.summary()


def test_terminal_states_do_not_stall_generation() -> None:
    # Every run of a zero-limit counter ends after two steps; Hypothesis keeps starting new runs.
    report = check_machine(
        COUNTER, st.just(Tally(limit=0)), outcomes=ROLLS, settings=FAST, require_all_transitions=False
    )
    assert report.runs > 60
    assert report.rows[("COUNTING", "ENOUGH", "DONE")] > 60


def test_the_derived_class_runs_as_a_unittest_case() -> None:
    derived = derive_state_machine(COUNTER, counters(), outcomes=ROLLS, budget=_budget)
    derived.TestCase.settings = FAST
    derived.TestCase("runTest").runTest()
