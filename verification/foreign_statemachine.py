"""Read a python-statemachine ``StateMachine`` or ``StateChart`` (class or instance) into the graph model.

States are ``states_map``'s states (their ``id``), the initial state is the one marked
``initial=True`` and the terminal states those marked ``final=True``; every transition
is a row labelled by each of its events (``eventless`` for an eventless one) to each
of its targets. Conditions and validators guard a transition at run time; the graph
keeps it (a guard never adds a route). States and events are located at the line in
the class body that assigns them (``green = State(initial=True)``, ``cycle = ...``).

python-statemachine already refuses some defects when the class is created (unless
its ``validate_*`` switches are off); this reader reports all of them in one run, and
livelocks it does not check (a loop with no way to a final state when none exists).
"""

from __future__ import annotations

import inspect
import re

from statemachine import StateChart

from verification.findings import Location
from verification.foreign_graph import Node, assemble_graph, kind_of
from verification.locate import class_location, relative_path
from verification.model import MachineGraph, Row

__all__ = ["statemachine_graph"]

FRAMEWORK = "python-statemachine"
APPLICABLE = frozenset({f"SM{n:03}" for n in (1, 2, 3, 4, 5, 6, 11, 12)})
"""Transitions are the events, so SM007/SM008/SM013 say nothing; no budgets (SM009) or effects (SM010)."""
HINTS = {
    "SM002": "add a transition into the state (other.to(state)), or remove the state",
    "SM004": "add a transition out of the state, or declare it State(final=True)",
    "SM005": "add a transition from the listed states to a final state (State(final=True))",
}


def _lines(cls: type) -> tuple[str, int, list[str]] | None:
    try:
        lines, start = inspect.getsourcelines(cls)
        path = inspect.getsourcefile(cls)
    except (OSError, TypeError):
        return None
    return (relative_path(path), start, lines) if path else None


def _assigned(source: tuple[str, int, list[str]] | None, name: str) -> Location | None:
    """The line of the class body that assigns ``name``."""
    if source is None:
        return None
    path, start, lines = source
    pattern = re.compile(rf"^\s+{re.escape(name)}\s*(?::[^=]+)?=")
    for offset, line in enumerate(lines):
        if pattern.match(line):
            return Location(path, start + offset)
    return None


def statemachine_graph(value: object, files: object = ()) -> MachineGraph | str:
    """Read a ``StateMachine`` class or instance (``files`` are not needed: the class records its lines).

    Example:
        >>> from statemachine import State, StateMachine
        >>> class Door(StateMachine):
        ...     closed = State(initial=True)
        ...     gone = State(final=True)
        ...     remove = closed.to(gone)
        >>> g = statemachine_graph(Door)
        >>> g.initial, g.terminals, [(r.source, r.event, r.target) for r in g.rows]
        ('closed', ('gone',), [('closed', 'remove', 'gone')])
    """
    del files
    cls = value if isinstance(value, type) else type(value)
    if not issubclass(cls, StateChart):  # StateMachine is a StateChart
        return f"a python-statemachine {kind_of(value)} is not a StateMachine or StateChart class or instance"
    states = list(cls.states_map.values())
    initial = getattr(cls, "initial_state", None)
    if not states or initial is None:
        return f"the StateMachine {cls.__name__} has no states"
    if any(state.states for state in states):
        return f"the StateMachine {cls.__name__} has compound or parallel states, which are not read"
    source = _lines(cls)
    rows: list[Row] = []
    nodes: list[Node] = []
    for state in states:
        labels: set[str] = set()
        for transition in state.transitions:
            events = [str(getattr(e, "id", e)) for e in transition.events] or ["eventless"]
            for event in events:
                labels.add(event)
                for target in transition.targets:
                    rows.append(
                        Row(
                            source=state.id,
                            event=event,
                            target=target.id,
                            location=_assigned(source, event) or _assigned(source, state.id),
                        )
                    )
        nodes.append(
            Node(
                name=state.id,
                terminal=bool(state.final),
                emits=frozenset(labels),
                location=_assigned(source, state.id),
            )
        )
    return assemble_graph(
        framework=FRAMEWORK,
        name=cls.__name__,
        nodes=nodes,
        initial=initial.id,
        rows=rows,
        applicable=APPLICABLE,
        hints=HINTS,
        origin=class_location(cls),
    )
