"""Randomly generated machines and outcome scripts for the engine's law tests.

Scripts hold outcomes of every kind the engine must judge: numbers, a value of the wrong
type (``"wrong"``, REJECTED), :data:`RAISE` (the performer raises: RAISED) and delivered
failures (UNKNOWN). Effectful states take every failure route: an effect that accepts
failures (:class:`DrawOrFail`), a declared ``failure_event``, or none (the run stops).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import ClassVar

import attrs
from hypothesis import strategies as st
from returns.result import Failure, Result

from agentsm_fn import (
    Effect,
    EffectFailure,
    Fault,
    Handler,
    Machine,
    Perform,
    Performers,
    Shell,
    StepClock,
    define_machine,
    effectful,
    emit,
    perform,
    pure,
)

Memory = tuple[int, ...]

RAISE = "raise"
"""A script entry: the performer raises ConnectionError("boom")."""
UNKNOWN = EffectFailure.unknown("Draw")
"""A script entry: a failure delivered as the outcome (as a recovery does)."""
Entry = int | str | EffectFailure


@attrs.frozen
class Draw(Effect[int]):
    """Ask the world for a number."""

    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    asked_in: str


@attrs.frozen
class DrawOrFail(Draw):
    """Ask for a number; a failure is handed to the handler itself."""

    outcome_types: ClassVar[tuple[type, ...]] = (int, EffectFailure)


def delivered(entry: Entry, effect: Effect[object] | None) -> object:
    """What the shell delivers for a script entry (the step-by-step path feeds this to ``resume``)."""
    if entry == RAISE:
        return EffectFailure.raised(type(effect).__name__, ConnectionError("boom"))
    return entry


def _perform(entry: Entry) -> object:
    if entry == RAISE:
        raise ConnectionError("boom")
    return entry


@attrs.frozen
class RandomMachine:
    """A generated machine plus the outcome script its run consumes."""

    machine: Machine[enum.Enum, enum.Enum, Memory]
    script: tuple[Entry, ...]

    def shell(self) -> Shell:
        outcomes = iter(self.script)
        return Shell(Performers().on(Draw, lambda _effect: _perform(next(outcomes, 0))), StepClock())


def _pure_handler(
    state: enum.Enum, choices: tuple[enum.Enum, ...]
) -> Callable[[Memory], Result[tuple[enum.Enum, Memory], Fault]]:
    def handler(memory: Memory) -> Result[tuple[enum.Enum, Memory], Fault]:
        if len(memory) == 6 and state.value % 4 == 0:
            raise RuntimeError(f"bug in {state.name}")
        pick = choices[(len(memory) + state.value) % len(choices)]
        return emit(pick, (*memory, state.value))

    return handler


def _effectful_handler(
    state: enum.Enum, choices: tuple[enum.Enum, ...], route: int, failure_event: enum.Enum
) -> Handler[enum.Enum, Memory]:
    """``route`` 0: no failure route; 1: a ``failure_event``; 2: the effect accepts failures."""
    kind = DrawOrFail if route == 2 else Draw

    def request(memory: Memory) -> Result[tuple[enum.Enum, Memory] | Perform[int, Memory], Fault]:
        return perform(kind(state.name), memory)

    def receive(
        memory: Memory, outcome: int | EffectFailure
    ) -> Result[tuple[enum.Enum, Memory] | Perform[int, Memory], Fault]:
        if isinstance(outcome, EffectFailure):
            return emit(choices[-1], (*memory, -99))
        if outcome < 0:
            return perform(Draw(state.name), (*memory, outcome))
        if outcome == 13:
            raise ValueError("unlucky outcome")
        if outcome == 49:
            return Failure(Fault(f"{state.name} cannot use 49"))
        return emit(choices[outcome % len(choices)], (*memory, outcome))

    return effectful(request, receive, failure_event=failure_event if route == 1 else None)


@st.composite
def random_machines(draw: st.DrawFn, max_states: int = 7, max_events: int = 4) -> RandomMachine:
    """A valid machine with 2..max_states states; handlers may emit events with no row."""
    n_states = draw(st.integers(2, max_states))
    n_events = draw(st.integers(1, max_events))
    states = enum.Enum("S", [f"S{i}" for i in range(n_states)])  # type: ignore[misc]  # functional Enum API
    events = enum.Enum("E", [f"E{i}" for i in range(n_events)])  # type: ignore[misc]  # functional Enum API
    all_states, all_events = list(states), list(events)
    terminals = frozenset(draw(st.sets(st.sampled_from(all_states), min_size=1, max_size=n_states - 1)))
    initial = draw(st.sampled_from(all_states))
    table: dict[tuple[enum.Enum, enum.Enum], enum.Enum] = {}
    for source in all_states:
        for event in all_events:
            if draw(st.integers(0, 3)) > 0:
                table[(source, event)] = draw(st.sampled_from(all_states))
    handlers: dict[enum.Enum, Handler[enum.Enum, Memory]] = {}
    for state in all_states:
        if state in terminals:
            continue
        choices = tuple(draw(st.lists(st.sampled_from(all_events), min_size=1, max_size=3)))
        if draw(st.booleans()):
            route = draw(st.integers(0, 2))
            handlers[state] = _effectful_handler(state, choices, route, draw(st.sampled_from(all_events)))
        else:
            handlers[state] = pure(_pure_handler(state, choices))
    cap = draw(st.integers(1, 40))
    machine = define_machine(
        states=states,
        events=events,
        initial=initial,
        terminals=terminals,
        table=table,
        handlers=handlers,
        safety_cap=cap,
        name="random",
    )
    odd: list[Entry] = [RAISE, "wrong", UNKNOWN]
    entries: st.SearchStrategy[Entry] = st.one_of(
        st.integers(-2, 50), st.integers(-2, 50), st.sampled_from(odd)
    )
    script: tuple[Entry, ...] = tuple(draw(st.lists(entries, max_size=30)))
    return RandomMachine(machine, script)
