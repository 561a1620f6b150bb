"""Private: the outcomes the explorer feeds each effect as it walks the kit's transition branches.

The kit's :func:`~verification.kit._drive.advance` takes one transition feeding one chosen
outcome per effect; the explorer walks the same :func:`~verification.kit._drive.branches`
with *every* outcome :class:`Choices` lists: the registry's examples, else its strategy
enumerated, plus one failure of each kind the shell delivers (raised, timed out, unknown)
wherever the state has a failure route.
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.machine import Machine
from verification.explore._enumerate import enumerate_strategy
from verification.kit.failures import failure_examples, has_failure_route
from verification.kit.outcomes import Outcomes

__all__ = ["Choices"]

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
