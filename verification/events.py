"""Which events a state can emit, read from its handler's return annotation.

A handler's return type names its events, e.g.
``Result[tuple[Literal[Ev.A, Ev.B], Mem] | Perform[Out, Mem], Fault]``: the
``Literal`` members of the machine's event enum are what it can emit (``Perform``
emits nothing itself). A bare event enum in the annotation means "any event".
An effectful state emits the union of what its ``request`` and ``receive`` can
emit, plus its declared failure event (the engine emits it when the state's effect fails,
see docs/effect-failures.md). An explicit ``events=`` declaration wins
over annotations. When neither can be read (a lambda, say) the reading says why
instead of raising.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from typing import Literal, TypeVar

import attrs

from agentsm_fn.core.handlers import Handler
from agentsm_fn.core.machine import Machine

__all__ = ["EventReading", "emittable_events", "read_events", "return_annotation"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Origin = Literal["declared", "annotation", "unknown"]
"""Where an event set came from."""


@attrs.frozen(kw_only=True)
class EventReading:
    """The events a handler can emit, where they came from, and what could not be read.

    ``events`` is None when they are unknown (``problem`` says why). ``foreign``
    holds event-like ``Literal`` members that are not members of the machine's
    event enum (the handler could emit something the table cannot route).

    Example:
        >>> EventReading(events=None, origin="unknown", problem="no annotation").problem
        'no annotation'
    """

    events: frozenset[enum.Enum] | None
    origin: Origin
    problem: str = ""
    foreign: tuple[str, ...] = ()


def _collect(tp: object, events: type[enum.Enum], found: set[enum.Enum], foreign: set[str]) -> None:
    """Add the events named inside ``tp`` to ``found`` (the bare enum means all of them)."""
    if tp is events:
        found.update(events)
        return
    if typing.get_origin(tp) is Literal:
        for arg in typing.get_args(tp):
            if isinstance(arg, events):
                found.add(arg)
            elif isinstance(arg, enum.Enum):
                foreign.add(_qual(arg))
        return
    for arg in typing.get_args(tp):
        _collect(arg, events, found, foreign)


def return_annotation(fn: Callable[..., object]) -> object | str:
    """``fn``'s evaluated return annotation, or why there is none (as a finding's message).

    Example:
        >>> def half(n: int) -> float:
        ...     return n / 2
        >>> return_annotation(half), return_annotation(lambda n: n)
        (<class 'float'>, '<lambda> has no return annotation')
    """
    name = getattr(fn, "__qualname__", repr(fn))
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:  # any error inside user annotations becomes a finding
        return f"the annotations of {name} cannot be evaluated ({type(exc).__name__}: {exc})"
    returned: object = hints.get("return", f"{name} has no return annotation")
    return returned


def _read_function(
    fn: Callable[..., object], events: type[enum.Enum]
) -> tuple[set[enum.Enum], set[str]] | str:
    """The events one function's return annotation names, or why they cannot be read."""
    name = getattr(fn, "__qualname__", repr(fn))
    if name.endswith("<lambda>"):
        return f"{name} is a lambda, whose return type cannot be annotated"
    returned = return_annotation(fn)
    if isinstance(returned, str):
        return returned
    found: set[enum.Enum] = set()
    foreign: set[str] = set()
    _collect(returned, events, found, foreign)
    return found, foreign


def read_events(handler: Handler[EventT, MemoryT], events: type[enum.Enum]) -> EventReading:
    """Read the events ``handler`` can emit, as members of ``events``.

    Example:
        >>> import enum
        >>> from typing import Literal
        >>> from returns.result import Result
        >>> from agentsm_fn import Fault, emit, pure
        >>> class Ev(enum.Enum):
        ...     GO = 1
        ...     STOP = 2
        >>> def go(n: int) -> Result[tuple[Literal[Ev.GO], int], Fault]:
        ...     return emit(Ev.GO, n)
        >>> reading = read_events(pure(go), Ev)
        >>> sorted(e.name for e in reading.events or ()), reading.origin
        (['GO'], 'annotation')
        >>> read_events(pure(lambda n: emit(Ev.GO, n)), Ev).origin
        'unknown'
    """
    extra: set[enum.Enum] = set()
    if handler.failure_event is not None and isinstance(handler.failure_event, events):
        extra.add(handler.failure_event)
    if handler.events is not None:
        declared = {e for e in handler.events if isinstance(e, events)}
        stray = tuple(sorted(_qual(e) for e in handler.events if not isinstance(e, events)))
        return EventReading(events=frozenset(declared | extra), origin="declared", foreign=stray)
    found: set[enum.Enum] = set()
    foreign: set[str] = set()
    for fn in handler.functions:
        got = _read_function(fn, events)
        if isinstance(got, str):
            return EventReading(events=None, origin="unknown", problem=got)
        found |= got[0]
        foreign |= got[1]
    return EventReading(events=frozenset(found | extra), origin="annotation", foreign=tuple(sorted(foreign)))


def _qual(e: enum.Enum) -> str:
    return f"{type(e).__name__}.{e.name}"


def emittable_events(machine: Machine[StateT, EventT, MemoryT], state: StateT) -> frozenset[EventT] | None:
    """The events ``state``'s handler can emit, or None when they are unknown.

    Terminal states and states without a handler emit nothing (an empty set).
    This is the function the property-testing kit builds on.

    Example:
        >>> from verification._examples import ONE_STEP, S, E  # A --GO--> B, B terminal
        >>> emittable_events(ONE_STEP, S.A) == {E.GO}, emittable_events(ONE_STEP, S.B)
        (True, frozenset())
    """
    handler = machine.handlers.get(state)
    if handler is None or state in machine.terminals:
        return frozenset()
    reading = read_events(handler, machine.events)
    if reading.events is None:
        return None
    return frozenset(typing.cast(EventT, e) for e in reading.events)
