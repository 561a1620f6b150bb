"""The built-in agents' run properties hold on the kit's generated runs, and catch planted bugs."""

from __future__ import annotations

import pytest

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
from agentsm_fn.core import Machine
from tests.agents.plan_execute.test_properties import OUTCOMES, entries, memories
from verification.kit import RunViolation, check_machine, kit_settings
from verification.kit.plan_execute_properties import PLAN_EXECUTE_PROPERTIES, plan_execute_budget
from verification.kit.react_invariants import REACT_PROPERTIES, react_budget
from verification.kit.react_strategies import (
    react_entries,
    react_memories,
    react_outcomes,
)

from .planted import IGNORING_BLACKLIST, SKIPPING_APPROVAL, banning_shell, risky_outcomes


def test_the_react_agents_run_properties_hold_on_the_kits_runs() -> None:
    report = check_machine(
        REACT_MACHINE,
        react_memories(),
        outcomes=react_outcomes(),
        entries=react_entries(),
        budget=react_budget,
        properties=REACT_PROPERTIES,
        settings=kit_settings(max_examples=120),
        require_all_transitions=False,
    )
    assert report.row_coverage > 0.9, report.summary()


def test_the_plan_execute_agents_run_properties_hold_on_the_kits_runs() -> None:
    report = check_machine(
        PLAN_EXECUTE_MACHINE,
        memories,
        entries=entries,
        outcomes=OUTCOMES,
        budget=plan_execute_budget,
        properties=PLAN_EXECUTE_PROPERTIES,
        settings=kit_settings(max_examples=60),
        require_all_transitions=False,
    )
    assert report.row_coverage > 0.8, report.summary()


@pytest.mark.parametrize(
    ("machine", "rule"),
    [
        (IGNORING_BLACKLIST, "a blacklisted tool never runs"),
        (SKIPPING_APPROVAL, "no tool that needs approval runs without one"),
    ],
    ids=["blacklist", "approval"],
)
def test_the_react_properties_catch_a_planning_state_that_ignores_its_policy(
    machine: Machine[State, Event, AgentMemory], rule: str
) -> None:
    with pytest.raises(RunViolation, match=rule) as caught:
        check_machine(
            machine,
            banning_shell(),
            outcomes=risky_outcomes(),
            budget=react_budget,
            properties=REACT_PROPERTIES,
            settings=kit_settings(stateful_step_count=10),
            require_all_transitions=False,
        )
    assert caught.value.kind == "property"
    assert caught.value.path[-1].source in {"Acting", "ParallelActing"}
