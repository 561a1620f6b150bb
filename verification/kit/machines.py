"""Strategies for a user's own machine: events of a state, and memories built by running it.

* :func:`events_of`: the events a state's handler can emit (what its annotation or
  ``events=`` declares), to test routing or a handler's caller;
* :func:`snapshots_through` and :func:`memories_through`: runs of the real machine
  from generated start memories with generated effect outcomes, stopped after a
  drawn number of transitions, so every memory they yield is one the machine can
  actually reach (optionally only in given states). Use them to property-test a
  single handler on realistic input.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeVar

from hypothesis import strategies as st

from agentsm_fn.core.engine import begin
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from verification.events import emittable_events
from verification.kit._drive import Moved, advance
from verification.kit.outcomes import Outcomes, default_outcomes

__all__ = ["events_of", "memories_through", "snapshots_through"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def events_of(machine: Machine[StateT, EventT, MemoryT], state: StateT) -> st.SearchStrategy[EventT]:
    """The events ``state`` can emit (every event of the machine when they cannot be read).

    Raises ``ValueError`` for a state that emits nothing (a terminal state).

    Example:
        >>> from verification.kit._demo import COUNTER, S
        >>> events_of(COUNTER, S.COUNTING)
        sampled_from((<E.ENOUGH: 'enough'>, <E.ROLLED: 'rolled'>, <E.ZERO: 'zero'>))
    """
    found = emittable_events(machine, state)
    events = tuple(machine.events) if found is None else tuple(sorted(found, key=lambda e: e.name))
    if not events:
        raise ValueError(f"state {state.name} emits no events (it is terminal or has no handler)")
    return st.sampled_from(events)


def snapshots_through(
    machine: Machine[StateT, EventT, MemoryT],
    memories: st.SearchStrategy[MemoryT],
    outcomes: Outcomes | None = None,
    *,
    max_transitions: int = 20,
    states: Iterable[StateT] | None = None,
) -> st.SearchStrategy[Snapshot[StateT, MemoryT]]:
    """Snapshots of real runs, stopped after up to ``max_transitions`` transitions.

    With ``states``, only snapshots in one of them (the last such point of the run);
    runs that never get there are rejected. A run that fails is cut before the failure.

    Example:
        >>> from verification.kit._demo import COUNTER, S, counters
        >>> isinstance(snapshots_through(COUNTER, counters(), states={S.COUNTING}), st.SearchStrategy)
        True
    """
    registry = outcomes or default_outcomes()
    wanted = None if states is None else frozenset(states)

    @st.composite
    def build(draw: st.DrawFn) -> Snapshot[StateT, MemoryT]:
        snapshot = begin(machine, draw(memories))
        limit = draw(st.integers(0, max_transitions), label="transitions")
        kept = snapshot if wanted is None or snapshot.state in wanted else None
        for _ in range(limit):
            if snapshot.finished:
                break
            moved = advance(machine, snapshot, lambda effect: draw(registry.strategy_for(effect)))
            if not isinstance(moved, Moved):
                break
            snapshot = moved.snapshot
            if wanted is None or snapshot.state in wanted:
                kept = snapshot
        if kept is None:
            from hypothesis import reject  # noqa: PLC0415 - only needed on this path

            reject()
        return kept

    return build()


def memories_through(
    machine: Machine[StateT, EventT, MemoryT],
    memories: st.SearchStrategy[MemoryT],
    outcomes: Outcomes | None = None,
    *,
    max_transitions: int = 20,
    states: Iterable[StateT] | None = None,
) -> st.SearchStrategy[MemoryT]:
    """Memories the machine really reaches (see :func:`snapshots_through`).

    Example:
        >>> from verification.kit._demo import COUNTER, S, counters
        >>> isinstance(memories_through(COUNTER, counters(), states={S.DONE}), st.SearchStrategy)
        True
    """
    return snapshots_through(machine, memories, outcomes, max_transitions=max_transitions, states=states).map(
        lambda snapshot: snapshot.memory
    )
