"""Shortest labelled paths and cycles over an adjacency map, deterministic by construction.

An adjacency map sends each node to its outgoing ``(event, target)`` pairs in a
fixed order, so every search here returns the same witness on every run. Plain
breadth-first search: networkx finds components, these find the labelled witnesses.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping, Sequence

from verification.findings import Edge

__all__ = ["Adjacency", "peel", "reach", "shortest_cycle", "shortest_path", "shortest_path_to_any"]

Adjacency = Mapping[str, Sequence[tuple[str, str]]]
"""Node -> its outgoing ``(event, target)`` pairs, in a fixed order."""


def reach(adjacency: Adjacency, starts: Iterable[str]) -> set[str]:
    """Every node reachable from ``starts`` (including them).

    Example:
        >>> sorted(reach({"A": [("go", "B")], "B": []}, ["A"]))
        ['A', 'B']
    """
    seen = set(starts)
    queue = deque(seen)
    while queue:
        for _, target in adjacency.get(queue.popleft(), ()):
            if target not in seen:
                seen.add(target)
                queue.append(target)
    return seen


def shortest_path_to_any(
    adjacency: Adjacency, start: str, goals: Collection[str], avoid: Collection[str] = ()
) -> tuple[Edge, ...] | None:
    """A shortest path from ``start`` to a node of ``goals`` not entering ``avoid``; None if none.

    The empty path when ``start`` is a goal.

    Example:
        >>> adj = {"A": [("x", "B"), ("y", "C")], "B": [("z", "C")], "C": []}
        >>> [str(e) for e in shortest_path_to_any(adj, "A", {"C"})]
        ['A --y--> C']
        >>> shortest_path_to_any(adj, "B", {"A"}) is None
        True
    """
    if start in goals:
        return ()
    parent: dict[str, tuple[str, str]] = {start: ("", "")}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for event, target in adjacency.get(node, ()):
            if target in parent or target in avoid:
                continue
            parent[target] = (node, event)
            if target in goals:
                return _unwind(parent, start, target)
            queue.append(target)
    return None


def shortest_path(adjacency: Adjacency, start: str, goal: str) -> tuple[Edge, ...] | None:
    """A shortest path from ``start`` to ``goal``, or None.

    Example:
        >>> [str(e) for e in shortest_path({"A": [("go", "B")]}, "A", "B")]
        ['A --go--> B']
    """
    return shortest_path_to_any(adjacency, start, {goal})


def _unwind(parent: Mapping[str, tuple[str, str]], start: str, end: str) -> tuple[Edge, ...]:
    edges: list[Edge] = []
    node = end
    while node != start:
        previous, event = parent[node]
        edges.append(Edge(previous, event, node))
        node = previous
    edges.reverse()
    return tuple(edges)


def _cycle_through(adjacency: Adjacency, node: str, within: Collection[str], bound: int) -> tuple[Edge, ...]:
    """A shortest cycle through ``node`` inside ``within`` shorter than ``bound``, or ()."""
    parent: dict[str, tuple[str, str]] = {node: ("", "")}
    depth = {node: 0}
    queue = deque([node])
    while queue:
        current = queue.popleft()
        if depth[current] + 1 >= bound:
            return ()
        for event, target in adjacency.get(current, ()):
            if target == node:
                return (*_unwind(parent, node, current), Edge(current, event, node))
            if target in parent or target not in within:
                continue
            parent[target] = (current, event)
            depth[target] = depth[current] + 1
            queue.append(target)
    return ()


def shortest_cycle(adjacency: Adjacency, nodes: Sequence[str]) -> tuple[Edge, ...]:
    """A shortest cycle among ``nodes`` (edges leaving them are ignored); () if acyclic.

    Ties go to the cycle through the earliest node of ``nodes``; the cycle starts there.

    Example:
        >>> adj = {"A": [("x", "B")], "B": [("y", "A"), ("z", "B")]}
        >>> [str(e) for e in shortest_cycle(adj, ["A", "B"])]
        ['B --z--> B']
    """
    within = set(nodes)
    best: tuple[Edge, ...] = ()
    bound = len(within) + 1
    for node in nodes:
        found = _cycle_through(adjacency, node, within, bound)
        if found and len(found) < bound:
            best, bound = found, len(found)
            if bound == 1:
                break
    return best


def peel(adjacency: Adjacency, nodes: Sequence[str]) -> tuple[list[str], list[str]]:
    """Kahn's algorithm inside ``nodes``: a topological order of the acyclic part, and the rest.

    The rest is empty exactly when ``nodes`` induce an acyclic graph; otherwise it
    holds every node of every cycle (and the nodes only reachable through them).

    Example:
        >>> peel({"A": [("x", "B")], "B": [("y", "C")], "C": [("z", "B")]}, ["A", "B", "C"])
        (['A'], ['B', 'C'])
    """
    within = set(nodes)
    indegree = dict.fromkeys(nodes, 0)
    for node in nodes:
        for _, target in adjacency.get(node, ()):
            if target in within:
                indegree[target] += 1
    queue = deque(n for n in nodes if indegree[n] == 0)
    order: list[str] = []
    while queue:
        node = queue.popleft()
        order.append(node)
        for _, target in adjacency.get(node, ()):
            if target in within:
                indegree[target] -= 1
                if indegree[target] == 0:
                    queue.append(target)
    done = set(order)
    return order, [n for n in nodes if n not in done]
