"""What the verifier knows of each declared state: its flags and its handler's facts.

:func:`state_infos` reads them from a machine: whether the state is terminal or budgeted,
its handler's events (:mod:`verification.events`), failure event, declared effects
(:mod:`verification.effect_types`), guardrails (:mod:`verification.guard_reading`), the child
it delegates to (:mod:`verification.child_reading`) and where the handler is written. A handler
that is not a :class:`~agentsm_fn.core.handlers.Handler` is data too (its events are unknown: SM013).
"""

from __future__ import annotations

import enum
from typing import TypeVar

import attrs

from agentsm_fn.core.handlers import Handler
from agentsm_fn.core.machine import Machine
from verification.child_reading import ChildInfo, read_children
from verification.effect_types import DeclaredEffects, read_effects
from verification.events import EventReading, read_events
from verification.findings import Location
from verification.guard_reading import GuardInfo, read_guards
from verification.locate import function_location

__all__ = ["StateInfo", "event_label", "state_infos"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

_NOTHING = EventReading(events=frozenset(), origin="declared")


def _names(reading: EventReading) -> frozenset[str] | None:
    return None if reading.events is None else frozenset(e.name for e in reading.events)


@attrs.frozen(kw_only=True)
class StateInfo:
    """A declared state: its flags, its handler's facts and the events it can emit.

    Example:
        >>> StateInfo(name="DONE", terminal=True).emits
        frozenset()
    """

    name: str
    terminal: bool = False
    budgeted: bool = False
    has_handler: bool = False
    effectful: bool = False
    failure_event: str | None = None
    effects: DeclaredEffects | None = None
    """The effect types the handler declares it requests (``effectful(..., effects=...)``), judged."""
    reading: EventReading = _NOTHING
    location: Location | None = None
    emits: frozenset[str] | None = attrs.field(
        default=attrs.Factory(lambda self: _names(self.reading), takes_self=True)
    )
    """The names of the events this state can emit, or None when unknown."""
    guards: tuple[GuardInfo, ...] = ()
    """The actions of the state's guardrails and their events (a guarding state's; SM015)."""
    children: tuple[ChildInfo, ...] = ()
    """The children a delegating, fanning-out or step-running state runs, and their outcomes' routes
    (SM016, SM017, SM018)."""


def event_label(value: object) -> str:
    """A member's name, or the ``repr`` of anything else.

    Example:
        >>> event_label(3)
        '3'
    """
    return value.name if isinstance(value, enum.Enum) else repr(value)


def state_infos(machine: Machine[StateT, EventT, MemoryT]) -> tuple[StateInfo, ...]:
    """Every declared state's facts, in declaration order (a malformed handler is data, not an error).

    Example:
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> [(s.name, s.terminal, sorted(s.emits or ())) for s in state_infos(ONE_STEP)]
        [('A', False, ['GO']), ('B', True, [])]
    """
    infos: list[StateInfo] = []
    facts: dict[int, tuple[EventReading, Location | None, frozenset[str] | None, DeclaredEffects | None]] = {}
    for state in machine.states:
        terminal = state in machine.terminals
        handler = machine.handlers.get(state)
        if handler is None or terminal:
            infos.append(StateInfo(name=state.name, terminal=terminal, budgeted=state in machine.budgeted))
            continue
        if not isinstance(handler, Handler):
            problem = f"its handler is not a Handler ({handler!r}); wrap plain functions with pure(...)"
            infos.append(
                StateInfo(
                    name=state.name,
                    budgeted=state in machine.budgeted,
                    has_handler=True,
                    reading=EventReading(events=None, origin="unknown", problem=problem),
                )
            )
            continue
        failure = handler.failure_event
        if id(handler) not in facts:  # handlers shared by many states are read once
            locations = [loc for loc in (function_location(f) for f in handler.functions) if loc]
            reading = read_events(handler, machine.events)
            facts[id(handler)] = (
                reading,
                locations[0] if locations else None,
                _names(reading),
                read_effects(handler),
            )
        reading, location, emits, effects = facts[id(handler)]
        infos.append(
            StateInfo(
                name=state.name,
                terminal=terminal,
                budgeted=state in machine.budgeted,
                has_handler=True,
                effectful=handler.effectful,
                failure_event=None if failure is None else event_label(failure),
                effects=effects,
                reading=reading,
                location=location,
                emits=emits,
                guards=read_guards(handler),
                children=read_children(handler),
            )
        )
    return tuple(infos)
