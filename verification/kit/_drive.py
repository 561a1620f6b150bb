"""Private: take one transition with the real pure engine, choosing outcomes on the way."""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Generic, TypeVar

import attrs
from returns.result import Failure, Result

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import resume, step
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen
class Moved(Generic[StateT, EventT, MemoryT]):
    """The run took ``row``; ``snapshot`` is the run after it."""

    snapshot: Snapshot[StateT, MemoryT]
    row: tuple[StateT, EventT, StateT]
    effects: tuple[Effect[object], ...]
    outcomes: tuple[object, ...]


@attrs.frozen
class Stopped(Generic[StateT, MemoryT]):
    """The engine returned a failure (or the handler asked for too many effects in one step)."""

    failure: RunFailed[StateT, MemoryT] | None
    effects: tuple[Effect[object], ...]
    outcomes: tuple[object, ...]


def last_row(
    machine: Machine[StateT, EventT, MemoryT], snapshot: Snapshot[StateT, MemoryT]
) -> tuple[StateT, EventT, StateT]:
    """The row the snapshot's last transition took, read from its trace (as the engine stored it)."""
    _, state, event, target, _, _ = snapshot.trace.rows[-1]
    if (
        isinstance(state, machine.states)
        and isinstance(event, machine.events)
        and isinstance(target, machine.states)
    ):
        return state, event, target
    entry = snapshot.trace[len(snapshot.trace) - 1]  # an imported trace holds names
    return machine.states[entry.state], machine.events[entry.event], machine.states[entry.target]


def advance(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    choose: Callable[[Effect[object]], object],
    max_effects: int = 20,
) -> Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]:
    """Step (and resume with chosen outcomes) until one transition is taken or the run fails."""
    effects: list[Effect[object]] = []
    outcomes: list[object] = []
    now = float(len(snapshot.journal))
    current = snapshot
    result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]
    while True:
        if current.status is Status.AWAITING and current.pending is not None:
            if len(effects) >= max_effects:
                return Stopped(None, tuple(effects), tuple(outcomes))
            effects.append(current.pending)
            outcome = choose(current.pending)
            outcomes.append(outcome)
            result = resume(machine, current, outcome, now)
        else:
            result = step(machine, current, now)
        if isinstance(result, Failure):
            return Stopped(result.failure(), tuple(effects), tuple(outcomes))
        current = result.unwrap()
        if current.status is not Status.AWAITING:
            return Moved(current, last_row(machine, current), tuple(effects), tuple(outcomes))
