"""Turn a foreign framework's graph into the :class:`~verification.model.MachineGraph` every check reads.

A reader (one per framework) lists the graph's nodes (:class:`Node`: its flags, the
labels of the routes it can take, where it is written) and its routes as
:class:`~verification.model.Row` values; :func:`assemble_graph` orders them
deterministically, adds the nodes that routes name but the graph does not declare,
and says which properties apply. The checks themselves are the verifier's own.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import attrs

from verification.events import EventReading, Origin
from verification.findings import Location, PropertyViolation
from verification.model import MachineGraph, Row, StateInfo

__all__ = ["Node", "assemble_graph", "kind_of"]


@attrs.frozen(kw_only=True)
class Node:
    """One node of a foreign graph: a state of the model.

    ``emits`` are the labels of the routes the node can take, or None when they
    cannot be known (``problem`` says why: an SM013 finding).

    Example:
        >>> Node(name="agent", emits=frozenset({"edge"})).terminal
        False
    """

    name: str
    emits: frozenset[str] | None = frozenset()
    terminal: bool = False
    origin: Origin = "declared"
    problem: str = ""
    location: Location | None = None

    def info(self) -> StateInfo:
        """The node as a declared state with a handler (a terminal node has none)."""
        if self.terminal:
            return StateInfo(name=self.name, terminal=True, location=self.location)
        reading = EventReading(
            events=None if self.emits is None else frozenset(),
            origin="unknown" if self.emits is None else self.origin,
            problem=self.problem,
        )
        return StateInfo(
            name=self.name, has_handler=True, reading=reading, location=self.location, emits=self.emits
        )


def kind_of(value: object) -> str:
    """What ``value`` is, for a message: a class's own name, else its class's name.

    Example:
        >>> kind_of(int), kind_of(3)
        ('int', 'int')
    """
    return value.__name__ if isinstance(value, type) else type(value).__name__


def assemble_graph(
    *,
    framework: str,
    name: str,
    nodes: Sequence[Node],
    initial: str,
    rows: Iterable[Row],
    applicable: frozenset[str],
    hints: Mapping[str, str],
    terms: Mapping[str, str] | None = None,
    origin: Location | None = None,
    findings: tuple[PropertyViolation, ...] = (),
) -> MachineGraph:
    """A :class:`MachineGraph` of ``nodes`` and ``rows``: rows deduplicated and sorted by node order.

    A row whose source or target is not one of ``nodes`` must say so
    (``source_declared``/``target_declared`` False): that is an SM006 finding.

    Example:
        >>> g = assemble_graph(framework="demo", name="g", initial="a", applicable=frozenset(), hints={},
        ...     nodes=[Node(name="a", emits=frozenset({"go"})), Node(name="b", terminal=True)],
        ...     rows=[Row(source="a", event="go", target="b")])
        >>> g.nodes, g.events, g.framework
        (('a', 'b'), ('go',), 'demo')
    """
    order = {node.name: i for i, node in enumerate(nodes)}
    big = len(order)
    unique = dict.fromkeys(rows)
    ordered = sorted(unique, key=lambda r: (order.get(r.source, big), r.source, r.event, r.target))
    events = dict.fromkeys(label for node in nodes for label in sorted(node.emits or ()))
    events.update(dict.fromkeys(r.event for r in ordered))
    names = dict.fromkeys(node.name for node in nodes)
    for row in ordered:
        names.setdefault(row.source)
        names.setdefault(row.target)
    names.setdefault(initial)
    return MachineGraph(
        name=name,
        states=tuple(node.info() for node in nodes),
        events=tuple(events),
        initial=initial,
        initial_declared=initial in order,
        rows=tuple(ordered),
        nodes=tuple(names),
        origin=origin,
        framework=framework,
        applicable=applicable,
        hints=dict(hints),
        terms=dict(terms or {}),
        findings=findings,
    )
