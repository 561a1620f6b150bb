"""Private: every way one transition can go from a (state, memory), with the engine's step and resume.

The kit's :func:`~verification.kit._drive.advance` takes one transition feeding one chosen
outcome per effect; :func:`transitions` takes it once for *every* outcome of every effect
on the way (a tree when a handler asks for several effects in one step), with the same
engine functions, so each result is the kit's :class:`~verification.kit._drive.Moved` or
:class:`~verification.kit._drive.Stopped`. :class:`Choices` lists an effect's outcomes:
the registry's examples, else its strategy enumerated, plus one failure of each kind the
shell delivers (raised, timed out, unknown) wherever the state has a failure route.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Generic, TypeVar

from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import resume, step
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from verification.explore._enumerate import enumerate_strategy
from verification.kit._drive import Moved, Stopped, last_row
from verification.kit.failures import failure_examples, has_failure_route
from verification.kit.outcomes import Outcomes

__all__ = ["Choices", "transitions"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

_CACHE_LIMIT = 4096


class Choices(Generic[StateT, EventT, MemoryT]):
    """The outcomes to try for an effect requested in a state (cached per state and effect)."""

    def __init__(self, machine: Machine[StateT, EventT, MemoryT], outcomes: Outcomes) -> None:
        self.machine = machine
        self.outcomes = outcomes
        self._cache: dict[tuple[StateT, Effect[object]], tuple[object, ...]] = {}

    def __call__(self, state: StateT, effect: Effect[object]) -> tuple[object, ...]:
        """Every outcome to feed ``effect`` in ``state`` (may raise NotEnumerable)."""
        try:
            return self._cache[(state, effect)]
        except KeyError:
            found = self._list(state, effect)
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[(state, effect)] = found
            return found
        except TypeError:  # an unhashable effect: list it every time
            return self._list(state, effect)

    def _list(self, state: StateT, effect: Effect[object]) -> tuple[object, ...]:
        values = self.outcomes.examples_for(effect)
        if not values:
            values = enumerate_strategy(self.outcomes.strategy_for(effect))
        if has_failure_route(self.machine, state, effect):
            values += failure_examples(effect)
        return values


def transitions(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    choices: Choices[StateT, EventT, MemoryT],
    max_effects: int,
) -> Iterator[Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]]:
    """Every transition from a READY ``snapshot``, one per combination of outcomes fed on the way.

    An effect with no outcome to try yields a :class:`Stopped` with no failure and that effect
    last, as does a step asking for more than ``max_effects`` effects.
    """
    result = step(machine, snapshot, 0.0)
    if isinstance(result, Failure):
        yield Stopped(result.failure(), (), ())
    else:
        yield from _settled(machine, result.unwrap(), choices, max_effects, (), ())


def _settled(
    machine: Machine[StateT, EventT, MemoryT],
    current: Snapshot[StateT, MemoryT],
    choices: Choices[StateT, EventT, MemoryT],
    max_effects: int,
    effects: tuple[Effect[object], ...],
    outcomes: tuple[object, ...],
) -> Iterator[Moved[StateT, EventT, MemoryT] | Stopped[StateT, MemoryT]]:
    pending = current.pending
    if current.status is not Status.AWAITING or pending is None:
        yield Moved(current, last_row(machine, current), effects, outcomes)
        return
    asked = (*effects, pending)
    options = choices(current.state, pending) if len(effects) < max_effects else ()
    if not options:
        yield Stopped(None, asked, outcomes)
    for outcome in options:
        fed = (*outcomes, outcome)
        result = resume(machine, current, outcome, 0.0)
        if isinstance(result, Failure):
            yield Stopped(result.failure(), asked, fed)
        else:
            yield from _settled(machine, result.unwrap(), choices, max_effects, asked, fed)
