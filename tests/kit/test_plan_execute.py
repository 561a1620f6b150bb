"""The kit on the plan-and-execute agent: full transition coverage, generated and scripted.

The strategies, outcome registry and invariants are the agent's own property tests'
(tests/agents/plan_execute/test_properties.py); here they run at the kit's CI
profile size with the all-transitions gate, plus the deterministic covering suite.
"""

from __future__ import annotations

import os

import attrs
import pytest

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    DecideMode,
    DeciderConfig,
    Event,
    FinalizerConfig,
    PlanExecuteConfig,
    PlanExecuteMemory,
    State,
)
from tests.agents.plan_execute.helpers import READ_SPEC, SEARCH_SPEC
from tests.agents.plan_execute.test_properties import ACK, FINAL, INVARIANTS, OUTCOMES, entries, memories
from verification.kit import ScriptedCase, check_machine, covering_cases, kit_settings, run_case
from verification.kit._graph import reachable_rows


def _budget(m: PlanExecuteMemory) -> int:
    return m.max_iterations + 1  # EXECUTE is visited once per iteration, and once more to stop


def _configs() -> tuple[PlanExecuteConfig, ...]:
    tools = (SEARCH_SPEC, READ_SPEC, FINAL)
    return (
        PlanExecuteConfig(tools=tools),
        PlanExecuteConfig(tools=tools, decider=DeciderConfig(mode=DecideMode.LLM)),
        PlanExecuteConfig(tools=tools, finish_tools=frozenset({"final_answer"})),
    )


CANDIDATES = tuple(
    PlanExecuteMemory(input="Find the best PDF library for Ruby", config=c, max_iterations=k, output=output)
    for output in (None, ACK)  # a typed result takes CORRECTING's rows
    for c in _configs()
    for k in (3, 0)
) + tuple(  # a typed result with one retry: a second invalid answer halts
    PlanExecuteMemory(
        input="x",
        config=attrs.evolve(c, finalizer=FinalizerConfig(max_output_retries=1)),
        max_iterations=3,
        output=ACK,
    )
    for c in _configs()
)
SUITE = covering_cases(PLAN_EXECUTE_MACHINE, CANDIDATES, OUTCOMES)


def test_generated_runs_take_every_row_and_keep_every_invariant() -> None:
    # 80 examples reach every row in the CI profile (a typed result doubles the space); deep: its own size.
    deep = os.environ.get("HYPOTHESIS_PROFILE", "") not in ("", "ci")
    report = check_machine(
        PLAN_EXECUTE_MACHINE,
        memories,
        entries=entries,
        invariants=INVARIANTS,
        outcomes=OUTCOMES,
        budget=_budget,
        settings=kit_settings() if deep else kit_settings(max_examples=80),
    )
    assert report.missing == ()


def test_the_scripted_suite_takes_every_row_from_the_initial_state() -> None:
    assert SUITE.unscripted == ()
    assert SUITE.rows == frozenset(reachable_rows(PLAN_EXECUTE_MACHINE))


@pytest.mark.parametrize("case", SUITE.cases, ids=SUITE.ids())
def test_each_scripted_case_takes_its_rows_and_keeps_every_invariant(
    case: ScriptedCase[State, Event, PlanExecuteMemory],
) -> None:
    run_case(PLAN_EXECUTE_MACHINE, case, INVARIANTS, budget=_budget)
