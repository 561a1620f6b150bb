"""Private: what the kit needs to know about a machine's graph.

The events a state can emit, the rows reachable from the initial state, and the
worst-case number of transitions per budget unit. The graph verifier
(:mod:`verification`) owns the authoritative versions; these small readings keep
the kit usable on its own and are switched to the verifier's where it exposes them.
"""

from __future__ import annotations

import enum
import typing
from collections.abc import Callable
from typing import Literal, TypeVar

import attrs
import networkx as nx

from agentsm_fn.core.handlers import Handler
from agentsm_fn.core.machine import Machine

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Row = tuple[StateT, EventT, StateT]


def _collect(tp: object, events: type[enum.Enum], found: set[enum.Enum]) -> None:
    if tp is events:
        found.update(events)
        return
    if typing.get_origin(tp) is Literal:
        found.update(arg for arg in typing.get_args(tp) if isinstance(arg, events))
        return
    for arg in typing.get_args(tp):
        _collect(arg, events, found)


def _read(fn: Callable[..., object], events: type[enum.Enum]) -> set[enum.Enum] | None:
    if getattr(fn, "__qualname__", "").endswith("<lambda>"):
        return None
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unreadable user annotations mean "unknown", never a crash
        return None
    if "return" not in hints:
        return None
    found: set[enum.Enum] = set()
    _collect(hints["return"], events, found)
    return found


def handler_events(
    handler: Handler[enum.Enum, object], events: type[enum.Enum]
) -> frozenset[enum.Enum] | None:
    """The events ``handler`` declares or names in its annotations; None when unknown."""
    extra = {handler.failure_event} if isinstance(handler.failure_event, events) else set()
    if handler.events is not None:
        return frozenset({e for e in handler.events if isinstance(e, events)} | extra)
    found: set[enum.Enum] = set(extra)
    for fn in handler.functions:
        got = _read(fn, events)
        if got is None:
            return None
        found |= got
    return frozenset(found)


def emittable_events(machine: Machine[StateT, EventT, MemoryT], state: StateT) -> frozenset[EventT] | None:
    """The events ``state`` can emit (empty for terminals), or None when unknown."""
    handler = machine.handlers.get(state)
    if handler is None or state in machine.terminals:
        return frozenset()
    found = handler_events(typing.cast(Handler[enum.Enum, object], handler), machine.events)
    return None if found is None else frozenset(typing.cast(EventT, e) for e in found)


def emittable_rows(machine: Machine[StateT, EventT, MemoryT]) -> tuple[Row[StateT, EventT], ...]:
    """Rows whose event the source state can emit (every row of a state whose events are unknown)."""
    rows: list[Row[StateT, EventT]] = []
    for (source, event), target in machine.table.items():
        if source in machine.terminals:
            continue
        allowed = emittable_events(machine, source)
        if allowed is None or event in allowed:
            rows.append((source, event, target))
    return tuple(sorted(rows, key=row_key))


def row_key(row: Row[StateT, EventT]) -> tuple[str, str, str]:
    """A stable sort key for a row."""
    return row[0].name, row[1].name, row[2].name


def reachable_rows(machine: Machine[StateT, EventT, MemoryT]) -> tuple[Row[StateT, EventT], ...]:
    """Emittable rows whose source is reachable from the initial state, in a stable order."""
    rows = emittable_rows(machine)
    seen = {machine.initial}
    frontier = [machine.initial]
    while frontier:
        state = frontier.pop()
        for source, _, target in rows:
            if source is state and target not in seen:
                seen.add(target)
                frontier.append(target)
    return tuple(r for r in rows if r[0] in seen)


@attrs.frozen
class Bound:
    """Worst-case transitions: ``prefix`` before the first budgeted visit, ``per_unit`` between two.

    A run whose budget allows ``n`` visits to budgeted states takes at most
    ``prefix + (n + 1) * per_unit`` transitions (the extra visit is the one that
    finds the budget spent and leaves).
    """

    prefix: int
    per_unit: int

    def transitions(self, units: int) -> int:
        """The bound for a run with ``units`` budget units."""
        return self.prefix + (max(units, 0) + 1) * self.per_unit


def transition_bound(machine: Machine[StateT, EventT, MemoryT]) -> Bound | None:
    """Cut the graph at budgeted states; None when a cycle avoids every budgeted state."""
    graph: nx.DiGraph[object] = nx.DiGraph()
    sink = ("<budgeted>",)
    for source, _, target in reachable_rows(machine):
        graph.add_edge(source, sink if target in machine.budgeted else target)
    graph.add_node(machine.initial)
    if not nx.is_directed_acyclic_graph(graph):
        return None
    longest: dict[object, int] = {}
    for node in reversed(list(nx.topological_sort(graph))):
        longest[node] = max((1 + longest[n] for n in graph.successors(node)), default=0)
    starts = [b for b in machine.budgeted if b in graph]
    per_unit = max((longest[b] for b in starts), default=0)
    return Bound(prefix=longest[machine.initial], per_unit=per_unit)
