"""Properties over whole runs, declared as data: absence, precedence, response, bounded existence.

An invariant speaks of one memory or one transition; a *run property* speaks of the
order of things in a run, the patterns of Dwyer's specification catalogue that workflows
need:

* absence, :func:`never`: "a card is never charged after the order is cancelled";
* precedence, :func:`only_after`: "no tool that needs approval runs without an approval
  earlier in the run (of that very call)";
* response, :func:`responds`: "every charge is followed by a receipt before the run ends";
* bounded existence, :func:`at_most`: "the agent takes at most its step bound of transitions".

What they speak of are :class:`~verification.kit.letters.Letter` values (what happened in
one step, each occurrence with a key that ties it to others: an approval of call ``c1``
allows the run of call ``c1`` only), built with :mod:`verification.kit.letters`.

Each property is an automaton over a run's transitions (:class:`RunProperty`): a small
hashable monitor state begun from the start memory, advanced by each transition, judged
again when the run ends. The kit's generated runs and the explorer
(:func:`verification.explore.explore`) check the same automata; the explorer keeps the
monitor states in its visited set, so "visited once" stays exact. Within one step,
occurrences of the required letter (precedence) and of the response count as having come
first: a step that approves and runs a call, or charges and records the receipt, passes.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Sequence
from typing import Generic, Literal, TypeAlias, TypeVar

import attrs

from verification.kit.invariants import Transition
from verification.kit.letters import Letter

__all__ = ["Monitors", "Pattern", "RunProperty", "at_most", "never", "only_after", "responds"]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Pattern = Literal["absence", "precedence", "response", "bounded existence"]
"""Which pattern of the catalogue a :class:`RunProperty` is."""


Verdict: TypeAlias = tuple[Hashable, str | None]
"""A monitor's next state and, when the property broke, why."""


@attrs.frozen
class RunProperty(Generic[StateT, MemoryT]):
    """A named property of runs: a monitor begun from the start memory and advanced per transition.

    ``begin(memory)`` is the monitor's first state; ``advance(monitor, transition)`` the next
    state and a problem (None while the property holds); ``end(monitor)`` a problem when the run
    has ended (a terminal state, or an accepted failure) with an obligation open.

    Example:
        >>> from verification.kit._demo import E, Tally
        >>> from verification.kit.letters import took
        >>> p = at_most(2, took(E.ROLLED))
        >>> p.name, p.pattern, p.begin(Tally())
        ('at most 2 of ROLLED', 'bounded existence', 2)
    """

    name: str
    pattern: Pattern
    begin: Callable[[MemoryT], Hashable]
    advance: Callable[[Hashable, Transition[StateT, MemoryT]], Verdict]
    end: Callable[[Hashable], str | None] = lambda monitor: None


def never(
    what: Letter[StateT, MemoryT], *, after: Letter[StateT, MemoryT] | None = None, name: str | None = None
) -> RunProperty[StateT, MemoryT]:
    """Absence: ``what`` never happens (after ``after`` has happened, when given).

    Example:
        >>> from verification.kit._demo import E
        >>> from verification.kit.letters import took
        >>> never(took(E.ROLLED), after=took(E.ZERO)).name
        'ROLLED never happens after ZERO'
    """
    scope = "" if after is None else f" after {after.name}"

    def advance(opened: Hashable, t: Transition[StateT, MemoryT]) -> Verdict:
        if opened and what.find(t):
            return opened, f"{what.name} happened{scope} (step {t.index})"
        return bool(opened or (after is not None and after.find(t))), None

    return RunProperty(
        name or f"{what.name} never happens{scope}", "absence", lambda m: after is None, advance
    )


def only_after(
    what: Letter[StateT, MemoryT], required: Letter[StateT, MemoryT], *, name: str | None = None
) -> RunProperty[StateT, MemoryT]:
    """Precedence: each occurrence of ``what`` comes after an occurrence of ``required`` with its key.

    Example:
        >>> from verification.kit._demo import E
        >>> from verification.kit.letters import took
        >>> only_after(took(E.ENOUGH), took(E.ROLLED)).name
        'ENOUGH only after ROLLED'
    """

    def advance(seen: Hashable, t: Transition[StateT, MemoryT]) -> Verdict:
        assert isinstance(seen, frozenset)
        now = seen | frozenset(required.find(t))
        missing = [k for k in what.find(t) if k not in now]
        if missing:
            keyed = "" if missing == [None] else f" for {missing[0]!r}"
            return now, f"{what.name}{keyed} with no {required.name} before it (step {t.index})"
        return now, None

    return RunProperty(name or f"{what.name} only after {required.name}", "precedence", _nothing, advance)


def responds(
    trigger: Letter[StateT, MemoryT], response: Letter[StateT, MemoryT], *, name: str | None = None
) -> RunProperty[StateT, MemoryT]:
    """Response: every ``trigger`` is followed by a ``response`` with its key before the run ends.

    Example:
        >>> from verification.kit._demo import E
        >>> from verification.kit.letters import took
        >>> responds(took(E.START), took(E.ENOUGH, E.ZERO)).name
        'every START is followed by ENOUGH|ZERO'
    """

    def advance(pending: Hashable, t: Transition[StateT, MemoryT]) -> Verdict:
        assert isinstance(pending, frozenset)
        return (pending | frozenset(trigger.find(t))) - frozenset(response.find(t)), None

    def end(pending: Hashable) -> str | None:
        assert isinstance(pending, frozenset)
        if not pending:
            return None
        keyed = "" if pending == {None} else f" for {sorted(map(repr, pending))[0]}"
        return f"the run ended with {trigger.name}{keyed} never followed by {response.name}"

    label = name or f"every {trigger.name} is followed by {response.name}"
    return RunProperty(label, "response", _nothing, advance, end)


def at_most(
    limit: int | Callable[[MemoryT], int], what: Letter[StateT, MemoryT], *, name: str | None = None
) -> RunProperty[StateT, MemoryT]:
    """Bounded existence: ``what`` happens at most ``limit`` times (a number, or one per start memory).

    Example:
        >>> from verification.kit._demo import E
        >>> from verification.kit.letters import took
        >>> at_most(lambda m: m.limit, took(E.ROLLED), name="rolls within the limit").name
        'rolls within the limit'
    """

    def begin(memory: MemoryT) -> Hashable:
        return limit if isinstance(limit, int) else limit(memory)

    def advance(left: Hashable, t: Transition[StateT, MemoryT]) -> Verdict:
        assert isinstance(left, int)
        now = left - len(what.find(t))
        return now, (f"{what.name} happened once too often (step {t.index})" if now < 0 else None)

    shown = limit if isinstance(limit, int) else "n"
    return RunProperty(name or f"at most {shown} of {what.name}", "bounded existence", begin, advance)


def _nothing(memory: object) -> Hashable:
    return frozenset()


Monitors: TypeAlias = tuple[Hashable, ...]
"""The monitor states of a sequence of properties, in order."""


def begin_all(properties: Sequence[RunProperty[StateT, MemoryT]], memory: MemoryT) -> Monitors:
    """Every property's first monitor state."""
    return tuple(p.begin(memory) for p in properties)


def advance_all(
    properties: Sequence[RunProperty[StateT, MemoryT]],
    monitors: Monitors,
    t: Transition[StateT, MemoryT],
) -> tuple[Monitors, str | None]:
    """Advance every monitor over ``t``; the first broken property's message, if any."""
    states: list[Hashable] = []
    for p, monitor in zip(properties, monitors, strict=True):
        try:
            after, problem = p.advance(monitor, t)
        except Exception as exc:  # a letter that raises is a broken property, as with invariants
            after, problem = monitor, f"its letter raised {type(exc).__name__}: {exc}"
        if problem is not None:
            return monitors, f"run property {p.name!r} broken: {problem}"
        states.append(after)
    return tuple(states), None


def end_all(properties: Sequence[RunProperty[StateT, MemoryT]], monitors: Monitors) -> str | None:
    """The first property an ended run breaks, as a message, or None."""
    for p, monitor in zip(properties, monitors, strict=True):
        problem = p.end(monitor)
        if problem is not None:
            return f"run property {p.name!r} broken: {problem}"
    return None
