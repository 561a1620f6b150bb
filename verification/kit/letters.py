"""Letters: what can happen in one step of a run, for run properties to speak of.

A :class:`Letter` is a name and a function from a
:class:`~verification.kit.invariants.Transition` to the *occurrences* in that step, each
with a key (``(None,)`` when it happened once and needs no key; ``()`` when it did not
happen). Keys tie occurrences together across steps: an approval of call ``c1`` allows
the run of call ``c1`` only. :func:`took`, :func:`entered`, :func:`requested` and
:func:`received` build the usual letters; write your own ``Letter(name, find)`` for the rest.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable
from typing import Generic, TypeAlias, TypeVar

import attrs

from agentsm_fn.core.effects import Effect
from verification.kit.invariants import Transition

__all__ = ["Letter", "Occurrences", "entered", "received", "requested", "took"]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
EffectT = TypeVar("EffectT", bound=Effect[object])

Occurrences: TypeAlias = tuple[Hashable, ...]
"""The keys of what happened in one step (``(None,)``: once, with no key; ``()``: not at all)."""
_ONCE: Occurrences = (None,)
_NONE: Occurrences = ()


@attrs.frozen
class Letter(Generic[StateT, MemoryT]):
    """Something that can happen in a step: ``find(transition)`` gives its occurrences' keys.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> big = Letter("a big step", lambda t: (None,) if t.after - t.before > 5 else ())
        >>> big.find(Transition(index=1, source=S.A, event=S.A, target=S.A, before=0, after=9))
        (None,)
    """

    name: str
    find: Callable[[Transition[StateT, MemoryT]], Occurrences]


def took(*events: enum.Enum) -> Letter[StateT, MemoryT]:
    """The step emitted one of ``events``.

    Example:
        >>> import enum
        >>> class E(enum.Enum):
        ...     PAID = 1
        >>> took(E.PAID).name
        'PAID'
    """
    chosen = frozenset(events)
    return Letter("|".join(e.name for e in events), lambda t: _ONCE if t.event in chosen else _NONE)


def entered(*states: StateT) -> Letter[StateT, MemoryT]:
    """The step's target is one of ``states``.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     DONE = 1
        >>> entered(S.DONE).name
        'entering DONE'
    """
    chosen = frozenset(states)
    return Letter(
        "entering " + "|".join(s.name for s in states),
        lambda t: _ONCE if t.target in chosen else _NONE,
    )


def requested(
    effect_type: type[EffectT],
    key: Callable[[EffectT], Hashable] | None = None,
    where: Callable[[EffectT, Transition[StateT, MemoryT]], bool] | None = None,
    name: str | None = None,
) -> Letter[StateT, MemoryT]:
    """The step requested an effect of ``effect_type`` (for which ``where`` holds), keyed by ``key``.

    Example:
        >>> from verification.kit._demo import Roll, S
        >>> rolls = requested(Roll)
        >>> rolls.find(Transition(index=1, source=S.COUNTING, event=S.COUNTING, target=S.COUNTING,
        ...                       before=0, after=0, effects=(Roll(), Roll())))
        (None, None)
    """

    def find(t: Transition[StateT, MemoryT]) -> Occurrences:
        return tuple(
            None if key is None else key(e)
            for e in t.effects
            if isinstance(e, effect_type) and (where is None or where(e, t))
        )

    return Letter(name or f"{effect_type.__name__} requested", find)


def received(
    effect_type: type[EffectT],
    outcome: Callable[[object], bool],
    key: Callable[[EffectT], Hashable] | None = None,
    name: str | None = None,
) -> Letter[StateT, MemoryT]:
    """The step received, for an effect of ``effect_type``, an outcome for which ``outcome`` holds.

    Example:
        >>> from verification.kit._demo import Roll, S
        >>> sixes = received(Roll, lambda n: n == 6)
        >>> sixes.find(Transition(index=1, source=S.COUNTING, event=S.COUNTING, target=S.COUNTING,
        ...                       before=0, after=0, effects=(Roll(), Roll()), outcomes=(6, 2)))
        (None,)
    """

    def find(t: Transition[StateT, MemoryT]) -> Occurrences:
        return tuple(
            None if key is None else key(e)
            for e, o in zip(t.effects, t.outcomes, strict=False)
            if isinstance(e, effect_type) and outcome(o)
        )

    return Letter(name or f"{effect_type.__name__} answered", find)
