"""The verifier on a plan-and-execute agent's step agents: read as EXECUTE's children (SM016-SM018)."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    Event,
    ExecutingSteps,
    State,
    StepAgent,
    StepChild,
    plan_execute_machine,
    step_child,
)
from agentsm_fn.teams import Team
from tests.verification import team_machines as t
from verification import render_text, verify
from verification.composition import compose
from verification.model import graph_of
from verification.team import verify_team

AGENT = StepAgent(name="review", description="Reviews a claim", program=t.PROGRAM)
CLERK = plan_execute_machine(steps=[step_child(AGENT, t.CHILD)])


def test_a_plan_execute_agent_with_a_step_agent_is_sound_and_reports_its_depth() -> None:
    report = verify(CLERK)
    assert report.ok and report.sound
    assert report.nesting is not None and report.nesting.depth == 1
    assert report.nesting.programs == (t.PROGRAM,)
    assert {v.code: v.status for v in report.verdicts if v.code in {"SM016", "SM017", "SM018"}} == {
        "SM016": "proved",
        "SM017": "proved",
        "SM018": "proved",
    }
    plain = verify(PLAN_EXECUTE_MACHINE)
    assert plain.nesting is None  # no step agents: no team verdicts


def test_an_unmapped_step_agent_terminal_is_sm016_naming_execute_program_and_terminal() -> None:
    planted = attrs.evolve(step_child(AGENT, t.CHILD), ends={t.C.APPROVED: Event.TOOL_CALLS_PRESENT})
    (found,) = [v for v in verify(plan_execute_machine(steps=[planted])).violations if v.code == "SM016"]
    assert found.message.startswith(
        f"plan_execute: EXECUTE gives a plan step to {t.PROGRAM}, whose outcome 'terminal REFUSED' "
        "maps to no event"
    )
    assert found.states == ("EXECUTE", f"{t.PROGRAM}:REFUSED")
    assert "StepChild(..., ends=...)" in found.hint


def test_a_step_agent_outcome_whose_event_has_no_row_from_execute_is_sm016() -> None:
    planted = attrs.evolve(step_child(AGENT, t.CHILD), failed=Event.OBSERVED)
    (found,) = [v for v in verify(plan_execute_machine(steps=[planted])).violations if v.code == "SM016"]
    assert "'failed' emits OBSERVED, but the table has no row (EXECUTE, OBSERVED)" in found.message


def test_step_agents_nest_and_a_plan_agent_that_steps_to_itself_is_sm018_recursion() -> None:
    clerk = StepAgent(name="clerk", description="", program="app:CLERK")
    outer = plan_execute_machine(steps=[step_child(clerk, CLERK)])
    report = verify(outer)
    assert report.nesting is not None and report.nesting.depth == 2
    itself = StepAgent(name="self", description="", program="app:SELF")
    looping = plan_execute_machine(steps=[step_child(itself, t.CHILD)])
    handler = looping.handlers[State.EXECUTE]
    assert isinstance(handler, ExecutingSteps)
    # A machine that steps to itself cannot be written as one frozen value: tie the knot.
    object.__setattr__(handler.children[0], "child", looping)
    object.__setattr__(handler.children[0], "ends", {s: Event.TOOL_CALLS_PRESENT for s in looping.terminals})
    found = [v for v in verify(looping).violations if v.code == "SM018"]
    assert found and "recursion:" in found[0].message
    assert "children: nest without bound (SM018)" in render_text([verify(looping)])


def test_a_team_s_composed_graph_goes_from_execute_into_the_step_agent_and_back() -> None:
    *_, team = verify_team(Team(agents={"app:CLERK": CLERK}))
    assert team.ok and team.violations == ()
    composed = compose("team", {"app:CLERK": graph_of(CLERK)})
    inside = f"app:CLERK:EXECUTE > {t.PROGRAM}"
    rows = {(r.source, r.event, r.target) for r in composed.model.rows}
    assert ("app:CLERK:EXECUTE", f"start {t.PROGRAM}", f"{inside}:WORK") in rows
    assert (f"{inside}:REFUSED", "TOOL_CALLS_PRESENT", "app:CLERK:OBSERVE") in rows
    assert ("app:CLERK:EXECUTE", "TOOL_CALLS_PRESENT", "app:CLERK:OBSERVE") in rows  # the executor's own


@settings(max_examples=40, deadline=None)
@given(
    ends=st.dictionaries(st.sampled_from(list(t.C)[1:]), st.sampled_from(list(Event))),
    failed=st.none() | st.sampled_from(list(Event)),
    cancelled=st.none() | st.sampled_from(list(Event)),
)
def test_sm016_holds_exactly_when_every_step_agent_outcome_has_an_event_with_a_row_from_execute(
    ends: dict[t.C, Event], failed: Event | None, cancelled: Event | None
) -> None:
    child = StepChild(agent=AGENT, child=t.CHILD, ends=ends, failed=failed, cancelled=cancelled)
    found = [v for v in verify(plan_execute_machine(steps=[child])).violations if v.code == "SM016"]
    rows = {e for (s, e) in PLAN_EXECUTE_MACHINE.table if s is State.EXECUTE}
    routes = [ends.get(t.C.APPROVED), ends.get(t.C.REFUSED), failed, cancelled]
    assert len(found) == len([e for e in routes if e is None or e not in rows])
