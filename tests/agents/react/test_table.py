"""The table and the machine: rows, reachability, declared events, cap, narration."""

from __future__ import annotations

import typing
from typing import cast

import networkx as nx

from agentsm_fn.agents.guardrails import Guarding
from agentsm_fn.agents.react import (
    REACT_MACHINE,
    TRANSITIONS,
    AgentConfig,
    AgentMemory,
    AskHuman,
    Event,
    State,
    is_valid_transition,
    narrate_react,
    safety_cap,
)
from agentsm_fn.llm import LlmCall


def _literal_events(annotation: object) -> set[Event]:
    found: set[Event] = set()
    for arg in typing.get_args(annotation):
        if isinstance(arg, Event):
            found.add(arg)
        else:
            found |= _literal_events(arg)
    return found


def test_machine_definition_has_no_problems() -> None:
    assert REACT_MACHINE.problems() == ()
    assert REACT_MACHINE.terminals == {State.Done, State.Error, State.Refused}
    guarding = {State.GuardingInput, State.GuardingToolCalls, State.GuardingOutput}
    assert REACT_MACHINE.budgeted == {State.Planning, State.Correcting, *guarding}
    assert REACT_MACHINE.initial is State.Idle


def test_table_is_001s_table_plus_budget_fatal_guards_typed_results_threads_and_guardrails() -> None:
    assert len(TRANSITIONS) == 50
    assert TRANSITIONS[(State.Acting, Event.HandedOff)] is State.Done  # a handoff (issue 29)
    assert TRANSITIONS[(State.Idle, Event.CheckInput)] is State.GuardingInput
    assert TRANSITIONS[(State.GuardingInput, Event.ThreadTooLong)] is State.Reflecting
    assert TRANSITIONS[(State.GuardingToolCalls, Event.GuardrailRefused)] is State.Observing
    assert TRANSITIONS[(State.GuardingOutput, Event.GuardrailRefused)] is State.Refused
    assert TRANSITIONS[(State.ReviewingOutput, Event.GuardrailReviewed)] is State.GuardingOutput
    assert TRANSITIONS[(State.Planning, Event.OutputInvalid)] is State.Correcting
    assert TRANSITIONS[(State.Correcting, Event.RetryOutput)] is State.Planning
    assert TRANSITIONS[(State.Correcting, Event.OutputRetriesExhausted)] is State.Error
    assert TRANSITIONS[(State.Idle, Event.ThreadTooLong)] is State.Reflecting
    assert TRANSITIONS[(State.Planning, Event.BudgetExceeded)] is State.Error
    assert TRANSITIONS[(State.WaitingForHuman, Event.HumanRejected)] is State.Observing
    assert TRANSITIONS[(State.WaitingForHuman, Event.HumanModified)] is State.Acting
    assert TRANSITIONS[(State.ParallelActing, Event.ToolFailure)] is State.Observing
    assert not is_valid_transition(State.Done, Event.Start)


def test_every_state_is_reachable_and_every_cycle_passes_a_budgeted_state() -> None:
    graph: nx.DiGraph[State] = nx.DiGraph([(s, t) for (s, _), t in TRANSITIONS.items()])
    assert nx.descendants(graph, State.Idle) | {State.Idle} == set(State)
    without_planning = graph.copy()
    without_planning.remove_node(State.Planning)
    # What is left of the cycles is a guarding state's review: its reviewing state and back.
    assert {frozenset(c) for c in nx.simple_cycles(without_planning)} == {
        frozenset({State.ReviewingInput, State.GuardingInput}),
        frozenset({State.ReviewingToolCalls, State.GuardingToolCalls}),
        frozenset({State.ReviewingOutput, State.GuardingOutput}),
    }
    without_budgets = without_planning.copy()
    without_budgets.remove_nodes_from(REACT_MACHINE.budgeted - {State.Planning})
    assert nx.is_directed_acyclic_graph(without_budgets)


def test_every_declared_event_has_a_row_and_every_row_is_emitted() -> None:
    emitted_rows: set[tuple[State, Event]] = set()
    for state, handler in REACT_MACHINE.handlers.items():
        events: set[Event] = set()
        if isinstance(handler, Guarding):  # a guarding state declares its events
            events = set(cast(frozenset[Event], handler.events))
        for fn in () if isinstance(handler, Guarding) else handler.functions:
            events |= _literal_events(typing.get_type_hints(fn)["return"])
        for event in events:
            assert (state, event) in TRANSITIONS, (state, event)
        emitted_rows |= {(state, e) for e in events}
    assert emitted_rows == set(TRANSITIONS)


def test_effectful_states_declare_their_failure_events() -> None:
    failure_events = {s: h.failure_event for s, h in REACT_MACHINE.handlers.items() if h.effectful}
    assert failure_events == {
        State.Planning: Event.FatalError,
        State.Acting: Event.ToolFailure,
        State.ParallelActing: Event.ToolFailure,
        State.WaitingForHuman: Event.HumanRejected,
        State.Reflecting: Event.ReflectDone,
        # Their effects turn failures into outcomes: an LLM check's failure trips it, a review's rejects.
        State.GuardingInput: None,
        State.GuardingToolCalls: None,
        State.GuardingOutput: None,
        State.ReviewingInput: None,
        State.ReviewingToolCalls: None,
        State.ReviewingOutput: None,
    }
    declared = {
        s: h.effects for s, h in REACT_MACHINE.handlers.items() if h.failure_event is None and h.effectful
    }
    assert declared == {
        State.GuardingInput: {LlmCall},
        State.GuardingToolCalls: {LlmCall},
        State.GuardingOutput: {LlmCall},
        State.ReviewingInput: {AskHuman},
        State.ReviewingToolCalls: {AskHuman},
        State.ReviewingOutput: {AskHuman},
    }


def test_safety_cap_leaves_room_for_max_steps() -> None:
    memory = AgentMemory.new("t").with_config(AgentConfig(max_steps=2))
    assert safety_cap(memory) == 13 > 2 * 3
    assert REACT_MACHINE.cap_for(memory) == 13


def test_idle_narration_is_the_seeds_log_line() -> None:
    memory = AgentMemory.new("find Paris").with_task_type("research")
    assert (
        narrate_react(State.Idle, Event.Start, memory)
        == "task='find Paris' task_type='research' max_steps=15"
    )


def test_a_refusal_row_names_the_refused_tools() -> None:
    memory = AgentMemory.new("t").evolve(step=3, refused_tools=("weather", "rm"))
    assert narrate_react(State.Planning, Event.ToolBlacklisted, memory) == "step=3 blacklisted=weather,rm"


def test_state_names_match_the_seed_plus_correcting_and_guardrails() -> None:
    assert [s.as_str() for s in State] == [
        "Idle",
        "Planning",
        "Acting",
        "ParallelActing",
        "WaitingForHuman",
        "Observing",
        "Reflecting",
        "Correcting",
        "GuardingInput",
        "GuardingToolCalls",
        "GuardingOutput",
        "ReviewingInput",
        "ReviewingToolCalls",
        "ReviewingOutput",
        "Done",
        "Error",
        "Refused",
    ]
    assert [s for s in State if s.is_terminal] == [State.Done, State.Error, State.Refused]
