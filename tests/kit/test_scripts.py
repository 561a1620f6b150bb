"""The deterministic suite: covering paths scripted into cases that take every row."""

from __future__ import annotations

import itertools

import attrs
import pytest
from hypothesis import strategies as st

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
from verification.kit import RunViolation
from verification.kit._demo import COUNTER, Roll, Tally
from verification.kit._graph import reachable_rows
from verification.kit.outcomes import Outcomes
from verification.kit.paths import covering_paths
from verification.kit.react_invariants import REACT_INVARIANTS, react_budget
from verification.kit.react_scripts import (
    react_guard_entries,
    react_guard_memories,
    react_guard_rows,
    react_script_entries,
    react_script_memories,
)
from verification.kit.react_strategies import react_outcomes
from verification.kit.scripts import ScriptedCase, covering_cases, run_case

from .planted import FORGETFUL_REACT

GUARD_ROWS = react_guard_rows()
REACT_SUITE = covering_cases(
    REACT_MACHINE,
    react_script_memories(),
    react_outcomes(),
    entries=react_script_entries(),
    rows=frozenset(reachable_rows(REACT_MACHINE)) - GUARD_ROWS,
)
# Guardrails' rows need guarded starts, whose runs the others' cannot share: a suite of their own.
GUARD_SUITE = covering_cases(
    REACT_MACHINE, react_guard_memories(), react_outcomes(), entries=react_guard_entries(), rows=GUARD_ROWS
)
ROLLS = Outcomes().on(Roll, lambda _: st.integers(0, 6), examples=lambda _: (0, 3))


def test_the_react_suites_script_every_row_of_the_table() -> None:
    assert REACT_SUITE.unscripted == () and GUARD_SUITE.unscripted == ()
    assert REACT_SUITE.rows | GUARD_SUITE.rows == frozenset(reachable_rows(REACT_MACHINE))
    assert len(REACT_SUITE.rows | GUARD_SUITE.rows) == len(REACT_MACHINE.table)
    assert GUARD_SUITE.rows >= GUARD_ROWS


def test_covering_paths_from_the_initial_state_are_as_few_as_the_ways_to_finish() -> None:
    # Every run ends with one row into a terminal, so there can be no fewer runs than such rows.
    paths = covering_paths(REACT_MACHINE).paths
    into_terminals = {r for r in reachable_rows(REACT_MACHINE) if r[2] in REACT_MACHINE.terminals}
    assert len(paths) == len(into_terminals)
    assert {r for p in paths for r in p} == set(reachable_rows(REACT_MACHINE))
    for path in paths:
        assert path[0][0] is REACT_MACHINE.initial
        assert path[-1][2] in REACT_MACHINE.terminals
        assert all(a[2] is b[0] for a, b in itertools.pairwise(path))


@pytest.mark.parametrize(
    "case", REACT_SUITE.cases + GUARD_SUITE.cases, ids=REACT_SUITE.ids() + GUARD_SUITE.ids()
)
def test_each_scripted_react_case_takes_its_rows_and_keeps_every_invariant(
    case: ScriptedCase[State, Event, AgentMemory],
) -> None:
    run_case(REACT_MACHINE, case, REACT_INVARIANTS, budget=react_budget)


def test_a_seeded_bug_fails_the_scripted_case_that_passes_through_observing() -> None:
    first = next(c for c in REACT_SUITE.cases if any(r[0] is State.Observing for r in c.rows))
    with pytest.raises(RunViolation, match="current_tool_call is cleared by Observing"):
        run_case(FORGETFUL_REACT, first, REACT_INVARIANTS)


def test_a_case_whose_outcomes_lead_elsewhere_is_reported() -> None:
    suite = covering_cases(COUNTER, [Tally(limit=1)], ROLLS)
    case = next(c for c in suite.cases if len(c.rows) == 3)
    wrong = attrs.evolve(case, outcomes=(0,))
    with pytest.raises(AssertionError, match="expected"):
        run_case(COUNTER, wrong)


def test_rows_that_no_start_can_reach_are_reported_unscripted() -> None:
    never_zero = Outcomes().on(Roll, lambda _: st.integers(1, 6), examples=lambda _: (3,))
    suite = covering_cases(COUNTER, [Tally(limit=1)], never_zero)
    assert [e.name for _, e, _ in suite.unscripted] == ["ZERO"]
    assert [c.id for c in suite.cases] == ["IDLE: START ROLLED ENOUGH"]
