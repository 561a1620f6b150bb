"""The graph model: any agentsm_fn machine as plain, named data plus a networkx multi-digraph.

:func:`graph_of` reads a :class:`~agentsm_fn.core.machine.Machine` (valid or not;
the raw constructor lets users build broken ones) into a :class:`MachineGraph`:
the declared states with their flags and emittable events, the rows with their
source lines, and ``graph``, a ``networkx.MultiDiGraph`` whose nodes are state
names and whose edges are rows keyed and labelled by event name.

Names: a declared state or event is its member name; anything undeclared that a
row or the initial state mentions is labelled ``Class.NAME`` (or its ``repr``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeVar

import attrs
import networkx as nx

from agentsm_fn.core.machine import Machine
from verification.events import EventReading, read_events
from verification.findings import Location
from verification.locate import RowLocator, class_location, function_location

__all__ = ["MachineGraph", "Row", "StateInfo", "graph_of"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Row:
    """One row of the table, by name, with where it is written when that is known."""

    source: str
    event: str
    target: str
    source_declared: bool = True
    event_declared: bool = True
    target_declared: bool = True
    location: Location | None = None


_NOTHING = EventReading(events=frozenset(), origin="declared")


@attrs.frozen(kw_only=True)
class StateInfo:
    """A declared state: its flags, its handler's facts and the events it can emit."""

    name: str
    terminal: bool = False
    budgeted: bool = False
    has_handler: bool = False
    effectful: bool = False
    failure_event: str | None = None
    reading: EventReading = _NOTHING
    location: Location | None = None

    @property
    def emits(self) -> frozenset[str] | None:
        """The names of the events this state can emit, or None when unknown."""
        if self.reading.events is None:
            return None
        return frozenset(e.name for e in self.reading.events)


@attrs.frozen(kw_only=True)
class MachineGraph:
    """A machine as named data and a ``networkx.MultiDiGraph`` (nodes: states, edge keys: events).

    Example:
        >>> import enum
        >>> from agentsm_fn import define_machine, emit, pure
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.B},
        ...     table={(S.A, E.GO): S.B}, handlers={S.A: pure(lambda n: emit(E.GO, n), events={E.GO})})
        >>> g = graph_of(m)
        >>> g.initial, g.terminals, sorted(g.graph.edges(keys=True))
        ('A', ('B',), [('A', 'B', 'GO')])
    """

    name: str
    states: tuple[StateInfo, ...]
    events: tuple[str, ...]
    initial: str
    initial_declared: bool
    rows: tuple[Row, ...]
    origin: Location | None = None
    """Where the state enum is defined: the fallback location of whole-machine findings."""
    graph: nx.MultiDiGraph[str] = attrs.field(eq=False, repr=False)

    @property
    def by_name(self) -> dict[str, StateInfo]:
        """Declared states by name."""
        return {s.name: s for s in self.states}

    @property
    def terminals(self) -> tuple[str, ...]:
        """Terminal state names in declaration order."""
        return tuple(s.name for s in self.states if s.terminal)

    @property
    def budgeted(self) -> tuple[str, ...]:
        """Budgeted state names in declaration order."""
        return tuple(s.name for s in self.states if s.budgeted)


def _label(value: object) -> str:
    return value.name if isinstance(value, enum.Enum) else repr(value)


def _name_in(value: object, cls: type[enum.Enum]) -> tuple[str, bool]:
    """The name of ``value`` and whether it is a member of ``cls``."""
    if isinstance(value, cls):
        return value.name, True
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}", False
    return repr(value), False


def _state_infos(machine: Machine[StateT, EventT, MemoryT]) -> tuple[StateInfo, ...]:
    infos: list[StateInfo] = []
    for state in machine.states:
        terminal = state in machine.terminals
        handler = machine.handlers.get(state)
        if handler is None or terminal:
            infos.append(StateInfo(name=state.name, terminal=terminal, budgeted=state in machine.budgeted))
            continue
        failure = handler.failure_event
        locations = [loc for loc in (function_location(f) for f in handler.functions) if loc]
        infos.append(
            StateInfo(
                name=state.name,
                terminal=terminal,
                budgeted=state in machine.budgeted,
                has_handler=True,
                effectful=handler.effectful,
                failure_event=None if failure is None else _label(failure),
                reading=read_events(handler, machine.events),
                location=locations[0] if locations else None,
            )
        )
    return tuple(infos)


def graph_of(machine: Machine[StateT, EventT, MemoryT], source_files: Iterable[str] = ()) -> MachineGraph:
    """Read ``machine`` into a :class:`MachineGraph`; never raises on a malformed machine.

    ``source_files`` are searched first for the lines of rows (the module the
    machine was imported from, say); the files of the state and event enums are
    always searched.

    Example:
        >>> import enum
        >>> from agentsm_fn import Machine
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> broken = Machine(states=S, events=E, initial=S.A, terminals=frozenset(),
        ...                  table={(S.A, E.GO): "nowhere"}, handlers={})
        >>> [(r.target, r.target_declared) for r in graph_of(broken).rows]
        [("'nowhere'", False)]
    """
    states, events = machine.states, machine.events
    infos = _state_infos(machine)
    locator = RowLocator(states, events, source_files)
    state_order = {s.name: i for i, s in enumerate(infos)}
    event_order = {e.name: i for i, e in enumerate(events)}
    rows: list[Row] = []
    for key, target in machine.table.items():
        source_value, event_value = key if isinstance(key, tuple) and len(key) == 2 else (key, None)
        source, source_ok = _name_in(source_value, states)
        event, event_ok = _name_in(event_value, events)
        target_name, target_ok = _name_in(target, states)
        location = locator.find(source, event) if source_ok and event_ok else None
        rows.append(
            Row(
                source=source,
                event=event,
                target=target_name,
                source_declared=source_ok,
                event_declared=event_ok,
                target_declared=target_ok,
                location=location,
            )
        )
    big = len(state_order) + 1
    rows.sort(
        key=lambda r: (state_order.get(r.source, big), r.source, event_order.get(r.event, big), r.event)
    )
    initial, initial_ok = _name_in(machine.initial, states)
    graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
    for info in infos:
        graph.add_node(info.name, terminal=info.terminal, budgeted=info.budgeted, declared=True)
    for row in rows:
        for node, ok in ((row.source, row.source_declared), (row.target, row.target_declared)):
            if node not in graph:
                graph.add_node(node, terminal=False, budgeted=False, declared=ok)
        graph.add_edge(row.source, row.target, key=row.event, event=row.event)
    if initial not in graph:
        graph.add_node(initial, terminal=False, budgeted=False, declared=initial_ok)
    return MachineGraph(
        name=machine.name,
        states=infos,
        events=tuple(e.name for e in events),
        initial=initial,
        initial_declared=initial_ok,
        rows=tuple(rows),
        origin=class_location(states),
        graph=graph,
    )
