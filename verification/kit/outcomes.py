"""Outcomes of effects: which values the kit feeds back for each effect a handler requests.

An :class:`Outcomes` registry maps an effect class to a function from the effect
(the instance, so a strategy can read the request) to a Hypothesis strategy of
outcomes, and optionally to a short tuple of representative outcomes used by the
deterministic covering-path suite. Lookup follows the effect class's MRO; an
unregistered effect falls back to ``st.from_type`` over its ``outcome_types``.
:func:`default_outcomes` knows the built-in :class:`~agentsm_fn.llm.LlmCall`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TypeVar, cast

import attrs
from hypothesis import strategies as st

from agentsm_fn.core.effects import Effect
from agentsm_fn.llm import LlmCall
from verification.kit.strategies import llm_outcome_examples, llm_outcomes_for

__all__ = ["Outcomes", "default_outcomes", "outcomes_of"]

EffectT = TypeVar("EffectT", bound=Effect[object])
"""An effect class the registry knows."""

_StrategyFn = Callable[[Effect[object]], st.SearchStrategy[object]]
_ExamplesFn = Callable[[Effect[object]], Sequence[object]]


def _fallback(effect: Effect[object]) -> st.SearchStrategy[object]:
    return st.one_of(*(st.from_type(t) for t in type(effect).outcome_types))


@attrs.frozen
class Outcomes:
    """A registry: effect class -> strategy of outcomes (and representative examples).

    Immutable; :meth:`on` returns a new registry.

    Example:
        >>> import attrs
        >>> from hypothesis import strategies as st
        >>> @attrs.frozen
        ... class Roll(Effect[int]):
        ...     outcome_types = (int,)
        >>> reg = Outcomes().on(Roll, lambda e: st.integers(1, 6), examples=lambda e: (1, 6))
        >>> reg.examples_for(Roll())
        (1, 6)
    """

    strategies: Mapping[type, _StrategyFn] = attrs.field(factory=lambda: MappingProxyType({}))
    examples: Mapping[type, _ExamplesFn] = attrs.field(factory=lambda: MappingProxyType({}))

    def on(
        self,
        effect_type: type[EffectT],
        strategy: Callable[[EffectT], st.SearchStrategy[object]],
        *,
        examples: Callable[[EffectT], Sequence[object]] | None = None,
    ) -> Outcomes:
        """A registry that answers ``effect_type`` (and its subclasses) with ``strategy``."""
        # The registry only ever calls a function with an instance of the class it is keyed by.
        strategies = dict(self.strategies) | {effect_type: cast(_StrategyFn, strategy)}
        found = dict(self.examples)
        if examples is not None:
            found[effect_type] = cast(_ExamplesFn, examples)
        return Outcomes(MappingProxyType(strategies), MappingProxyType(found))

    def merge(self, other: Outcomes) -> Outcomes:
        """A registry with ``other``'s entries overriding this one's."""
        return Outcomes(
            MappingProxyType(dict(self.strategies) | dict(other.strategies)),
            MappingProxyType(dict(self.examples) | dict(other.examples)),
        )

    def _lookup(
        self, table: Mapping[type, Callable[[Effect[object]], object]], effect: Effect[object]
    ) -> object:
        for klass in type(effect).__mro__:
            fn = table.get(klass)
            if fn is not None:
                return fn(effect)
        return None

    def strategy_for(self, effect: Effect[object]) -> st.SearchStrategy[object]:
        """The strategy of outcomes for ``effect`` (its ``underlying()`` effect decides)."""
        inner = effect.underlying()
        found = self._lookup(self.strategies, inner)
        return cast(st.SearchStrategy[object], found) if found is not None else _fallback(inner)

    def examples_for(self, effect: Effect[object]) -> tuple[object, ...]:
        """Representative outcomes for ``effect``, for deterministic searches (may be empty)."""
        found = self._lookup(self.examples, effect.underlying())
        return () if found is None else tuple(cast(Sequence[object], found))


def outcomes_of(effect: Effect[object], registry: Outcomes | None = None) -> st.SearchStrategy[object]:
    """A strategy of outcomes for ``effect``, from ``registry`` or :func:`default_outcomes`.

    Example:
        >>> from agentsm_fn.llm import LlmCall, LlmRequest, LlmReply, LlmFailure
        >>> strategy = outcomes_of(LlmCall(LlmRequest(model="", messages=())))
        >>> isinstance(strategy, st.SearchStrategy)
        True
    """
    return (registry or default_outcomes()).strategy_for(effect)


def default_outcomes() -> Outcomes:
    """The registry for the built-in effects (:class:`~agentsm_fn.llm.LlmCall` for now).

    Example:
        >>> from agentsm_fn.llm import LlmCall, LlmRequest
        >>> len(default_outcomes().examples_for(LlmCall(LlmRequest(model="", messages=())))) > 5
        True
    """
    return Outcomes().on(LlmCall, llm_outcomes_for, examples=llm_outcome_examples)
