"""The machine as data: the seed's table, terminals, budget, declared events and the verifier's proof."""

from __future__ import annotations

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE, TABLE, Event, PlanExecuteMemory, State
from agentsm_fn.agents.plan_execute.machine import transitions_cap
from verification import emittable_events, render_text, verify

# The seed's "State Transitions" section, label by label.
SEED_ROWS = {
    ("INTAKE", "normalized", "PLAN"),
    ("PLAN", "valid_plan", "DECIDE"),
    ("PLAN", "invalid_plan", "HALT"),
    ("DECIDE", "continue", "EXECUTE"),
    ("DECIDE", "stop", "FINALIZE"),
    ("DECIDE", "invalid", "HALT"),
    ("EXECUTE", "tool_calls_present", "OBSERVE"),
    ("EXECUTE", "no_tool_calls", "FINALIZE"),
    ("EXECUTE", "error", "HALT"),
    ("OBSERVE", "observed", "LOOP_CHECK"),
    ("LOOP_CHECK", "continue", "EXECUTE"),
    ("LOOP_CHECK", "stop", "FINALIZE"),
    ("LOOP_CHECK", "violation", "HALT"),
}
# A typed result's rows: an answer that is not one is corrected, a bounded number of times.
TYPED_ROWS = {
    ("DECIDE", "output_invalid", "CORRECTING"),
    ("EXECUTE", "output_invalid", "CORRECTING"),
    ("LOOP_CHECK", "output_invalid", "CORRECTING"),
    ("CORRECTING", "retry_output", "EXECUTE"),
    ("CORRECTING", "output_retries_exhausted", "HALT"),
}


def test_the_table_is_exactly_the_seeds() -> None:
    rows = {(s.name, e.value, t.name) for (s, e), t in PLAN_EXECUTE_MACHINE.table.items()}
    assert rows == SEED_ROWS | TYPED_ROWS
    assert PLAN_EXECUTE_MACHINE.table == TABLE


def test_states_are_the_seeds_s0_to_s7_and_correcting() -> None:
    assert [(s.name, s.value) for s in State] == [
        ("INTAKE", 0),
        ("PLAN", 1),
        ("DECIDE", 2),
        ("EXECUTE", 3),
        ("OBSERVE", 4),
        ("LOOP_CHECK", 5),
        ("FINALIZE", 6),
        ("HALT", 7),
        ("CORRECTING", 8),
    ]
    assert PLAN_EXECUTE_MACHINE.initial is State.INTAKE
    assert PLAN_EXECUTE_MACHINE.terminals == {State.FINALIZE, State.HALT}


def test_execute_and_correcting_are_budgeted_and_every_loop_goes_through_execute() -> None:
    assert PLAN_EXECUTE_MACHINE.budgeted == {State.EXECUTE, State.CORRECTING}
    edges = {(s, t) for (s, _), t in TABLE.items() if State.EXECUTE not in (s, t)}

    def reaches(start: State, goal: State, seen: frozenset[State] = frozenset()) -> bool:
        nexts = {t for s, t in edges if s is start}
        return goal in nexts or any(reaches(n, goal, seen | {start}) for n in nexts - seen)

    assert not any(reaches(s, s) for s in State)  # without EXECUTE the graph has no cycle
    assert reaches(State.INTAKE, State.FINALIZE)


def test_every_handler_declares_exactly_its_seed_events() -> None:
    expected = {
        State.INTAKE: {Event.NORMALIZED},
        State.PLAN: {Event.VALID_PLAN, Event.INVALID_PLAN},
        State.DECIDE: {Event.CONTINUE, Event.STOP, Event.INVALID, Event.OUTPUT_INVALID},
        State.EXECUTE: {Event.TOOL_CALLS_PRESENT, Event.NO_TOOL_CALLS, Event.ERROR, Event.OUTPUT_INVALID},
        State.OBSERVE: {Event.OBSERVED},
        State.LOOP_CHECK: {Event.CONTINUE, Event.STOP, Event.VIOLATION, Event.OUTPUT_INVALID},
        State.CORRECTING: {Event.RETRY_OUTPUT, Event.OUTPUT_RETRIES_EXHAUSTED},
    }
    for state, events in expected.items():
        assert emittable_events(PLAN_EXECUTE_MACHINE, state) == frozenset(events), state


def test_effectful_states_declare_a_failure_event_with_a_row() -> None:
    halting = set()
    for state, handler in PLAN_EXECUTE_MACHINE.handlers.items():
        if state is State.CORRECTING:  # pure: it performs nothing that could fail
            assert not handler.effectful
            continue
        event = handler.failure_event
        assert handler.effectful and isinstance(event, Event), state
        assert (state, event) in TABLE
        if TABLE[(state, event)] is State.HALT:
            halting.add(state)
    assert halting == {State.PLAN, State.DECIDE, State.EXECUTE, State.LOOP_CHECK}


def test_the_verifier_proves_every_property() -> None:
    report = verify(PLAN_EXECUTE_MACHINE)
    text = render_text([report])
    assert "all 12 checked properties proved" in text, text


def test_the_safety_cap_leaves_room_for_the_longest_run() -> None:
    # 4 transitions to reach EXECUTE (through CORRECTING), 4 per iteration (LOOP_CHECK through
    # CORRECTING back to EXECUTE), and the last one into a terminal.
    assert transitions_cap(PlanExecuteMemory(input="x", max_iterations=3)) == 17
    assert transitions_cap(PlanExecuteMemory(input="x", max_iterations=0)) == 5
