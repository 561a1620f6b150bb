"""Invariants: predicates the kit checks after every generated step.

Two kinds:

* a :class:`MemoryInvariant` holds of every memory a run reaches (its start too);
* a :class:`TransitionInvariant` holds of every :class:`Transition`: the source
  state, the event, the target state and the memory before and after.

Build them with :func:`memory_invariant` and :func:`transition_invariant`, or with
the helpers for the usual ownership rules: :func:`only_changed_in` (who may write a
field), :func:`cleared_in` (who must clear it), :func:`append_only` (a sequence
only grows, except in named states) and :func:`unchanged_in` (states that never
change memory). A predicate that raises counts as violated.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from typing import Generic, TypeAlias, TypeVar

import attrs

from agentsm_fn.core.effects import Effect

__all__ = [
    "Invariant",
    "MemoryInvariant",
    "Transition",
    "TransitionInvariant",
    "append_only",
    "cleared_in",
    "memory_invariant",
    "only_changed_in",
    "transition_invariant",
    "unchanged_in",
]

StateT = TypeVar("StateT", bound=enum.Enum)
"""The machine's state enum."""
MemoryT = TypeVar("MemoryT")
"""The machine's memory type."""
StateT_contra = TypeVar("StateT_contra", bound=enum.Enum, contravariant=True)
"""The state enum an invariant reads."""
MemoryT_contra = TypeVar("MemoryT_contra", contravariant=True)
"""The memory type an invariant reads."""


@attrs.frozen(kw_only=True)
class Transition(Generic[StateT, MemoryT]):
    """One step of a run: ``source --event--> target``, memory before and after.

    ``index`` is the 1-based transition number in the run; ``effects`` are the
    effects the handler requested during this step and ``outcomes`` what it received.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> Transition(index=1, source=S.A, event=E.GO, target=S.A, before=0, after=1).changed
        True
    """

    index: int
    source: StateT
    event: enum.Enum
    target: StateT
    before: MemoryT
    after: MemoryT
    effects: tuple[Effect[object], ...] = ()
    outcomes: tuple[object, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the memory changed in this step."""
        return bool(self.before != self.after)


@attrs.frozen
class MemoryInvariant(Generic[MemoryT_contra]):
    """A named predicate that must hold of every memory a run reaches.

    Example:
        >>> MemoryInvariant("non-negative", lambda n: n >= 0).holds(3)
        True
    """

    name: str
    holds: Callable[[MemoryT_contra], bool]


@attrs.frozen
class TransitionInvariant(Generic[StateT_contra, MemoryT_contra]):
    """A named predicate that must hold of every transition a run takes.

    Example:
        >>> inv = TransitionInvariant("grows", lambda t: t.after >= t.before)
        >>> inv.name
        'grows'
    """

    name: str
    holds: Callable[[Transition[StateT_contra, MemoryT_contra]], bool]


Invariant: TypeAlias = TransitionInvariant[StateT, MemoryT] | MemoryInvariant[MemoryT]
"""Either kind of invariant: ``Invariant[State, Memory]``."""


def memory_invariant(name: str, holds: Callable[[MemoryT], bool]) -> MemoryInvariant[MemoryT]:
    """An invariant over memory: ``holds(memory)`` is True in every reachable memory.

    Example:
        >>> memory_invariant("small", lambda n: n < 10).holds(12)
        False
    """
    return MemoryInvariant(name, holds)


def transition_invariant(
    name: str, holds: Callable[[Transition[StateT, MemoryT]], bool]
) -> TransitionInvariant[StateT, MemoryT]:
    """An invariant over a step: ``holds(transition)`` is True for every step taken.

    Example:
        >>> transition_invariant("never shrinks", lambda t: t.after >= t.before).name
        'never shrinks'
    """
    return TransitionInvariant(name, holds)


def _names(states: Iterable[enum.Enum]) -> str:
    return ", ".join(sorted(s.name for s in states))


def only_changed_in(
    field: str,
    read: Callable[[MemoryT], object],
    writers: Iterable[StateT],
) -> TransitionInvariant[StateT, MemoryT]:
    """``read(memory)`` changes only in steps taken from one of ``writers``.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     PLAN = 1
        ...     ACT = 2
        >>> inv = only_changed_in("step", lambda m: m, {S.PLAN})
        >>> t = Transition(index=1, source=S.ACT, event=S.ACT, target=S.PLAN, before=1, after=2)
        >>> inv.name, inv.holds(t)
        ('step is changed only in PLAN', False)
    """
    allowed = frozenset(writers)

    def holds(t: Transition[StateT, MemoryT]) -> bool:
        return t.source in allowed or read(t.before) == read(t.after)

    return TransitionInvariant(f"{field} is changed only in {_names(allowed)}", holds)


def cleared_in(
    field: str,
    read: Callable[[MemoryT], object],
    clearers: Iterable[StateT],
    empty: object = None,
) -> TransitionInvariant[StateT, MemoryT]:
    """After a step taken from one of ``clearers``, ``read(memory)`` equals ``empty``.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     OBSERVE = 1
        >>> inv = cleared_in("current_tool_call", lambda m: m, {S.OBSERVE})
        >>> inv.holds(Transition(index=1, source=S.OBSERVE, event=S.OBSERVE, target=S.OBSERVE,
        ...                      before="call", after="call"))
        False
    """
    allowed = frozenset(clearers)

    def holds(t: Transition[StateT, MemoryT]) -> bool:
        return t.source not in allowed or read(t.after) == empty

    return TransitionInvariant(f"{field} is cleared by {_names(allowed)}", holds)


def append_only(
    field: str,
    read: Callable[[MemoryT], Sequence[object]],
    except_in: Iterable[StateT] = (),
) -> TransitionInvariant[StateT, MemoryT]:
    """``read(memory)`` only grows at its end, except in steps taken from ``except_in``.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> inv = append_only("history", lambda m: m)
        >>> inv.holds(Transition(index=1, source=S.A, event=S.A, target=S.A, before=(1,), after=(1, 2)))
        True
        >>> inv.holds(Transition(index=1, source=S.A, event=S.A, target=S.A, before=(1,), after=(2,)))
        False
    """
    exempt = frozenset(except_in)

    def holds(t: Transition[StateT, MemoryT]) -> bool:
        if t.source in exempt:
            return True
        before, after = read(t.before), read(t.after)
        return len(after) >= len(before) and all(a == b for a, b in zip(before, after, strict=False))

    suffix = f" (except in {_names(exempt)})" if exempt else ""
    return TransitionInvariant(f"{field} is append-only{suffix}", holds)


def unchanged_in(states: Iterable[StateT]) -> TransitionInvariant[StateT, MemoryT]:
    """Steps taken from ``states`` never change memory.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     DONE = 1
        >>> unchanged_in({S.DONE}).holds(
        ...     Transition(index=1, source=S.DONE, event=S.DONE, target=S.DONE, before=1, after=2))
        False
    """
    frozen = frozenset(states)

    def holds(t: Transition[StateT, MemoryT]) -> bool:
        return t.source not in frozen or not t.changed

    return TransitionInvariant(f"{_names(frozen)} never change memory", holds)
