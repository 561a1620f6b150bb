"""Strategies for a user's machine: events of a state, memories reached by running it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory, Event, State
from agentsm_fn.agents.react.observing import observe
from agentsm_fn.core import Snapshot
from verification.kit import events_of, memories_through, snapshots_through
from verification.kit._demo import COUNTER, E, Roll, S, Tally, counters
from verification.kit.outcomes import Outcomes
from verification.kit.react_strategies import react_memories, react_outcomes

ROLLS = Outcomes().on(Roll, lambda _: st.integers(0, 6))


@given(events_of(COUNTER, S.COUNTING))
def test_events_of_a_state_are_the_ones_its_handler_annotates(event: E) -> None:
    assert event in {E.ROLLED, E.ENOUGH, E.ZERO}


def test_a_terminal_state_has_no_events_to_draw() -> None:
    with pytest.raises(ValueError, match="emits no events"):
        events_of(COUNTER, S.DONE)


@settings(max_examples=50, deadline=None)
@given(snapshots_through(COUNTER, counters(), ROLLS, states={S.COUNTING}))
def test_snapshots_through_the_machine_are_reachable_ones(snapshot: Snapshot[S, Tally]) -> None:
    assert snapshot.state is S.COUNTING
    assert snapshot.memory.rolls <= snapshot.memory.limit
    assert snapshot.steps == 1 + snapshot.memory.rolls


@settings(max_examples=50, deadline=None)
@given(memories_through(REACT_MACHINE, react_memories(), react_outcomes(), states={State.Observing}))
def test_observing_commits_and_clears_on_every_memory_it_can_really_receive(memory: AgentMemory) -> None:
    event, after = observe(memory).unwrap()
    assert event in {Event.Continue, Event.NeedsReflection}
    assert after.current_tool_call is None and after.last_observation is None
    assert len(after.history) > len(memory.history)
