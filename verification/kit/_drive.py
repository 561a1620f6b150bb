"""Private: take one transition with the real pure engine, choosing outcomes on the way.

:func:`branches` walks every way a transition can go (each outcome of each effect requested
on the way); :func:`advance`, one transition of a generated or scripted run, is its first
branch with one chosen outcome per effect, and the explorer (:mod:`verification.explore`)
walks them all: one step/resume loop for both.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence
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
    """The engine returned a failure (None: an effect had no outcome to feed, or one too many was asked)."""

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


def branches(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    options: Callable[[StateT, Effect[object]], Sequence[object]],
    max_effects: int = 20,
) -> Iterator[Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]]:
    """Every way one transition can go: step, and resume with each outcome ``options`` gives each effect.

    One result per combination of outcomes fed on the way (a tree when a handler asks for
    several effects in one step), depth first, so the first is the run that takes the first
    option every time (:func:`advance`). An effect with no option, or beyond ``max_effects``
    in one transition, ends its branch as a :class:`Stopped` with no failure and that effect last.
    """
    now = float(len(snapshot.journal))

    def walk(
        current: Snapshot[StateT, MemoryT], effects: tuple[Effect[object], ...], outcomes: tuple[object, ...]
    ) -> Iterator[Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]]:
        pending = current.pending
        if current.status is not Status.AWAITING or pending is None:
            yield from settle(step(machine, current, now), effects, outcomes)
            return
        asked = (*effects, pending)
        tries = options(current.state, pending) if len(effects) < max_effects else ()
        if not tries:
            yield Stopped(None, asked, outcomes)
        for outcome in tries:
            yield from settle(resume(machine, current, outcome, now), asked, (*outcomes, outcome))

    def settle(
        result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]],
        effects: tuple[Effect[object], ...],
        outcomes: tuple[object, ...],
    ) -> Iterator[Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]]:
        if isinstance(result, Failure):
            yield Stopped(result.failure(), effects, outcomes)
            return
        current = result.unwrap()
        if current.status is Status.AWAITING:
            yield from walk(current, effects, outcomes)
        else:
            yield Moved(current, last_row(machine, current), effects, outcomes)

    return walk(snapshot, (), ())


def advance(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    choose: Callable[[Effect[object]], object],
    max_effects: int = 20,
) -> Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]:
    """Step (and resume with chosen outcomes) until one transition is taken or the run fails."""
    return next(branches(machine, snapshot, lambda state, effect: (choose(effect),), max_effects))
