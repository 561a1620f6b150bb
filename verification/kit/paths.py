"""Covering paths: the fewest runs from the initial state that take every reachable row.

A run starts in the initial state and ends in a terminal one, so a set of runs
that takes every row is a flow from the initial state to the terminals with at
least one unit on every row. :func:`covering_paths` solves the minimum such flow
with networkx (a min-cost circulation whose only cost is one per run, plus a tiny
cost per transition to keep runs short) and splits it into runs with an Eulerian
circuit. Rows from which no terminal can be reached cannot lie on a finished run;
they are returned in ``uncovered``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import Generic, TypeVar

import attrs
import networkx as nx

from agentsm_fn.core.machine import Machine
from verification.kit._graph import reachable_rows

__all__ = ["CoveringPaths", "covering_paths", "shortest_finish"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

_SOURCE = "<start>"
_SINK = "<end>"


@attrs.frozen
class CoveringPaths(Generic[StateT, EventT]):
    """Runs (each a tuple of rows from the initial state to a terminal) covering every row.

    Example:
        >>> from verification.kit._demo import COUNTER
        >>> found = covering_paths(COUNTER)
        >>> [" ".join(e.name for _, e, _ in p) for p in found.paths]
        ['START ROLLED ENOUGH', 'START ZERO']
    """

    paths: tuple[tuple[tuple[StateT, EventT, StateT], ...], ...]
    uncovered: tuple[tuple[StateT, EventT, StateT], ...] = ()

    def ids(self) -> tuple[str, ...]:
        """One readable id per path, for ``pytest.mark.parametrize(ids=...)``."""
        return tuple(" ".join(e.name for _, e, _ in path) for path in self.paths)


def covering_paths(
    machine: Machine[StateT, EventT, MemoryT],
    skip: Iterable[tuple[StateT, EventT, StateT]] = (),
) -> CoveringPaths[StateT, EventT]:
    """The minimum number of initial-to-terminal runs that together take every reachable row.

    Rows in ``skip`` need not be taken (they are still usable, and land in ``uncovered``).
    """
    skipped = frozenset(skip)
    rows = reachable_rows(machine)
    graph: nx.DiGraph[StateT] = nx.DiGraph()
    graph.add_edges_from((s, t) for s, _, t in rows)
    finishing = {t for t in machine.terminals if t in graph}
    alive: set[StateT] = set(finishing)
    for terminal in finishing:
        alive |= nx.ancestors(graph, terminal)
    usable = tuple(r for r in rows if r[0] in alive and r[2] in alive)
    uncovered = tuple(r for r in rows if r not in usable or r in skipped)
    if not usable:
        return CoveringPaths((), uncovered)

    # Each row is a node "in the middle of its edge" so parallel rows (same states,
    # different events) each get their own unit of flow.
    flow_graph: nx.DiGraph[object] = nx.DiGraph()
    demand: dict[object, int] = {}
    per_run = 10 * (len(usable) + 1)  # cheaper to lengthen runs than to add one
    for row in usable:
        source, _, target = row
        # Lower bound 1 on source -> row: pre-route one unit, the rest is free flow.
        need = 0 if row in skipped else 1
        demand[source] = demand.get(source, 0) + need
        demand[row] = demand.get(row, 0) - need
        flow_graph.add_edge(source, row, weight=1)
        flow_graph.add_edge(row, target, weight=0)
    flow_graph.add_edge(_SOURCE, machine.initial, weight=0)
    for terminal in finishing:
        if terminal in alive:
            flow_graph.add_edge(terminal, _SINK, weight=0)
    flow_graph.add_edge(_SINK, _SOURCE, weight=per_run)
    for node in flow_graph.nodes:
        flow_graph.nodes[node]["demand"] = demand.get(node, 0)
    flow = nx.min_cost_flow(flow_graph)

    multi: nx.MultiDiGraph[object] = nx.MultiDiGraph()
    for row in usable:
        source, _, target = row
        units = (0 if row in skipped else 1) + flow[source][row]
        for _ in range(units):
            multi.add_edge(source, target, row=row)
    runs = flow[_SINK][_SOURCE]
    for _ in range(runs):
        multi.add_edge(_SOURCE, machine.initial, row=None)
    for terminal in finishing:
        for _ in range(flow.get(terminal, {}).get(_SINK, 0)):
            multi.add_edge(terminal, _SINK, row=None)
    for _ in range(runs):
        multi.add_edge(_SINK, _SOURCE, row=None)

    paths: list[tuple[tuple[StateT, EventT, StateT], ...]] = []
    current: list[tuple[StateT, EventT, StateT]] = []
    for u, v, key in nx.eulerian_circuit(multi, source=_SOURCE, keys=True):
        row = multi.edges[u, v, key]["row"]
        if row is not None:
            current.append(row)
        if v == _SINK:
            paths.append(tuple(current))
            current = []
    paths.sort(key=lambda p: (-len(p), [(s.name, e.name) for s, e, _ in p]))
    return CoveringPaths(tuple(paths), uncovered)


def shortest_finish(
    machine: Machine[StateT, EventT, MemoryT], state: StateT
) -> tuple[tuple[StateT, EventT, StateT], ...] | None:
    """The fewest reachable rows from ``state`` to a terminal state (None if there is no way).

    Example:
        >>> from verification.kit._demo import COUNTER, S
        >>> [e.name for _, e, _ in shortest_finish(COUNTER, S.IDLE)]
        ['START', 'ENOUGH']
    """
    rows = reachable_rows(machine)
    parent: dict[StateT, tuple[StateT, EventT, StateT] | None] = {state: None}
    frontier = [state]
    while frontier:
        found = next((s for s in frontier if s in machine.terminals), None)
        if found is not None:
            path: list[tuple[StateT, EventT, StateT]] = []
            at = parent[found]
            while at is not None:
                path.append(at)
                at = parent[at[0]]
            return tuple(reversed(path))
        following: list[StateT] = []
        for current in frontier:
            for row in rows:
                if row[0] is current and row[2] not in parent:
                    parent[row[2]] = row
                    following.append(row[2])
        frontier = following
    return None
