"""The kit on the ReAct agent: every built-in invariant holds at full coverage; planted bugs are caught."""

from __future__ import annotations

from collections.abc import Sequence

import attrs
import pytest
from hypothesis import strategies as st

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State, TokenBudget
from agentsm_fn.core import Machine
from verification.kit import CoverageReport, Outcomes, RunViolation, check_machine, kit_settings
from verification.kit.react_invariants import BUDGET_RESPECTED, REACT_INVARIANTS, ReactInvariant, react_budget
from verification.kit.react_strategies import (
    react_entries,
    react_memories,
    react_outcomes,
)

from .planted import (
    FORGETFUL_REACT,
    IGNORING_BLACKLIST,
    OVERSPENDING_REACT,
    SKIPPING_APPROVAL,
    banning_shell,
    risky_outcomes,
)

# Every built-in rule but the budget one, which the agent breaks today (see the last test).
HOLDING = tuple(REACT_INVARIANTS)


def check_react(
    machine: Machine[State, Event, AgentMemory] = REACT_MACHINE,
    *,
    invariants: Sequence[ReactInvariant] = HOLDING,
    examples: int | None = None,
    steps: int | None = None,
    require_all_transitions: bool = True,
    memories: st.SearchStrategy[AgentMemory] | None = None,
    entries: bool = True,
    outcomes: Outcomes | None = None,
) -> CoverageReport:
    return check_machine(
        machine,
        react_memories() if memories is None else memories,
        invariants=invariants,
        outcomes=react_outcomes() if outcomes is None else outcomes,
        budget=react_budget,
        entries=react_entries() if entries else None,
        settings=kit_settings(max_examples=examples, stateful_step_count=steps),
        require_all_transitions=require_all_transitions,
    )


def test_the_react_agent_keeps_every_invariant_at_full_transition_coverage() -> None:
    # 300 runs take every row with the fixed seed (200 missed two rows of 50 once handoffs came)
    report = check_react(examples=300)
    assert report.missing == ()
    assert len(report.reachable) == len(REACT_MACHINE.table)
    print(report.summary())


def test_a_seeded_bug_in_observing_is_caught_with_a_short_counterexample() -> None:
    with pytest.raises(RunViolation) as caught:
        check_react(FORGETFUL_REACT, steps=12, require_all_transitions=False)
    violation = caught.value
    assert violation.kind == "invariant"
    assert "current_tool_call" in str(violation)
    assert len(violation.path) <= 6
    assert violation.path[-1].source == "Observing"
    print(violation)


def spending_memories() -> st.SearchStrategy[AgentMemory]:
    """The memories where a budget defect shows: a small token budget, and reflection after every step.

    Over every memory (``react_memories``) 200 examples found the Reflecting defect below with 7 of 12
    seeds (the search also draws literals from whichever project modules are loaded, so a change
    anywhere could lose it); over these, with 40 of 40 seeds.
    """
    return st.builds(
        lambda memory, total: memory.with_config(
            attrs.evolve(memory.config, budget=TokenBudget(total=total), reflect_every_n_steps=1)
        ),
        react_memories(),
        st.integers(0, 30),
    )


def test_the_budget_rule_catches_reflecting_calling_the_llm_after_the_budget_is_spent() -> None:
    # The kit found this defect in the agent (since fixed): Reflecting compressed the history
    # with an LLM call without checking the token budget, overshooting it by two calls.
    with pytest.raises(RunViolation) as caught:
        check_react(
            OVERSPENDING_REACT,
            invariants=[BUDGET_RESPECTED],
            examples=200,
            steps=15,
            require_all_transitions=False,
            memories=spending_memories(),
        )
    assert caught.value.path[-1].source == "Reflecting", str(caught.value)
    assert "token budget" in str(caught.value)


@pytest.mark.parametrize("spending", [False, True], ids=["any memory", "spending memories"])
def test_the_budget_rule_holds_for_the_agent(spending: bool) -> None:
    check_react(
        invariants=[BUDGET_RESPECTED],
        examples=100,
        steps=15,
        require_all_transitions=False,
        memories=spending_memories() if spending else None,
    )


@pytest.mark.parametrize(
    ("machine", "rule"),
    [
        (IGNORING_BLACKLIST, "a blacklisted tool is never executed"),
        (SKIPPING_APPROVAL, "a tool that needs approval never runs without it"),
    ],
    ids=["blacklist", "approval"],
)
def test_the_safety_invariants_catch_a_planning_state_that_ignores_its_policy(
    machine: Machine[State, Event, AgentMemory], rule: str
) -> None:
    with pytest.raises(RunViolation, match=rule) as caught:
        check_react(
            machine,
            steps=10,
            require_all_transitions=False,
            memories=banning_shell(),
            entries=False,
            outcomes=risky_outcomes(),
        )
    assert caught.value.path[-1].source in {"Acting", "ParallelActing"}
    assert len(caught.value.path) <= 6
