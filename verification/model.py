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
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, TypeVar

import attrs

from agentsm_fn.core.machine import Machine
from verification.findings import MACHINE_CODES, TEAM_CODES, Location, PropertyViolation
from verification.locate import RowLocator, class_location
from verification.states import StateInfo, state_infos

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["MachineGraph", "Row", "StateInfo", "graph_of"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Row:
    """One row of the table, by name, with where it is written when that is known.

    Example:
        >>> Row(source="IDLE", event="START", target="WORK").target_declared
        True
    """

    source: str
    event: str
    target: str
    source_declared: bool = True
    event_declared: bool = True
    target_declared: bool = True
    location: Location | None = None


@attrs.frozen(kw_only=True)
class MachineGraph:
    """A machine as named data and a ``networkx.MultiDiGraph`` (nodes: states, edge keys: events).

    Example:
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> g = graph_of(ONE_STEP)
        >>> g.initial, g.terminals, sorted(g.graph.edges(keys=True))
        ('A', ('B',), [('A', 'B', 'GO')])
    """

    name: str
    states: tuple[StateInfo, ...]
    events: tuple[str, ...]
    initial: str
    initial_declared: bool
    rows: tuple[Row, ...]
    nodes: tuple[str, ...]
    """Every node: the declared states in order, then undeclared names that rows or ``initial`` use."""
    origin: Location | None = None
    """Where the state enum is defined: the fallback location of whole-machine findings."""
    framework: str = "agentsm_fn"
    """What the graph was read from: ``agentsm_fn``, or a foreign framework (``langgraph``, ...)."""
    applicable: frozenset[str] = MACHINE_CODES - TEAM_CODES
    """The property codes that apply to this graph (foreign graphs lack budgets, effects, ...; a machine
    that delegates to no child, children and teams)."""
    hints: Mapping[str, str] = attrs.field(factory=dict)
    """Fix hints by code in the framework's own terms, replacing the default hints."""
    terms: Mapping[str, str] = attrs.field(factory=dict)
    """Phrases of the default messages and the framework's own words for them (for foreign graphs)."""
    findings: tuple[PropertyViolation, ...] = ()
    """Violations only the reader can see (a LangGraph interrupt without a checkpointer: SM014)."""
    _cache: dict[str, nx.MultiDiGraph[str]] = attrs.field(factory=dict, init=False, eq=False, repr=False)

    @property
    def graph(self) -> nx.MultiDiGraph[str]:
        """The table as a ``networkx.MultiDiGraph``: nodes are states, edges rows keyed by event.

        Node attributes ``terminal``, ``budgeted`` and ``declared``; edge attribute
        ``event``. Built on first use (the checks do not need it).
        """
        if "graph" not in self._cache:
            import networkx as nx  # noqa: PLC0415  # imported on use: ~0.2 s a short CLI run can skip

            graph: nx.MultiDiGraph[str] = nx.MultiDiGraph()
            declared = self.by_name
            for node in self.nodes:
                info = declared.get(node)
                graph.add_node(
                    node,
                    terminal=bool(info and info.terminal),
                    budgeted=bool(info and info.budgeted),
                    declared=info is not None,
                )
            for r in self.rows:
                graph.add_edge(r.source, r.target, key=r.event, event=r.event)
            self._cache["graph"] = graph
        return self._cache["graph"]

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


def _name_in(value: object, cls: type[enum.Enum], names: dict[object, str]) -> tuple[str, bool]:
    """The name of ``value`` and whether it is a member of ``cls`` (``names``: members to names)."""
    try:
        name = names.get(value)
    except TypeError:  # an unhashable value where a member belongs
        name = None
    if name is not None and isinstance(value, cls):
        return name, True
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}", False
    return repr(value), False


def graph_of(machine: Machine[StateT, EventT, MemoryT], source_files: Iterable[str] = ()) -> MachineGraph:
    """Read ``machine`` into a :class:`MachineGraph`; a malformed table or handler is data, not an error.

    Only a machine whose states or events are not enum classes cannot be read
    (a TypeError: a programmer error).

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
    if not all(isinstance(k, type) and issubclass(k, enum.Enum) for k in (states, events)):
        raise TypeError("cannot read the machine: " + "; ".join(machine.problems()))
    infos = state_infos(machine)
    locator = RowLocator(states, events, source_files)
    state_order = {s.name: i for i, s in enumerate(infos)}
    event_order = {e.name: i for i, e in enumerate(events)}
    state_names: dict[object, str] = {m: m.name for m in states}
    event_names: dict[object, str] = {m: m.name for m in events}
    rows: list[Row] = []
    for key, target in machine.table.items():
        source_value, event_value = key if isinstance(key, tuple) and len(key) == 2 else (key, None)
        source, source_ok = _name_in(source_value, states, state_names)
        event, event_ok = _name_in(event_value, events, event_names)
        target_name, target_ok = _name_in(target, states, state_names)
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
    initial, initial_ok = _name_in(machine.initial, states, state_names)
    declared = {info.name for info in infos}
    nodes = dict.fromkeys(info.name for info in infos)
    for row in rows:
        for node in (row.source, row.target):
            if node not in declared:
                nodes.setdefault(node)
    nodes.setdefault(initial)
    return MachineGraph(
        name=machine.name,
        states=infos,
        events=tuple(e.name for e in events),
        initial=initial,
        initial_declared=initial_ok,
        rows=tuple(rows),
        nodes=tuple(nodes),
        origin=class_location(states),
        applicable=MACHINE_CODES if any(i.children for i in infos) else MACHINE_CODES - TEAM_CODES,
    )
