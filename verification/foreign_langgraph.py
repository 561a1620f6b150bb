"""Read a LangGraph ``StateGraph`` (built or compiled) into the verifier's graph model.

The builder keeps everything (a compiled graph keeps its builder): ``nodes`` (name to
spec: the node's function and the ``Command`` destinations read from its annotation or
``destinations=``), ``edges`` (plain edges), ``waiting_edges`` (joins) and ``branches``
(conditional edges: the routing function and the ``path_map``, or the routes LangGraph
read from the function's ``Literal`` return annotation). START is the initial node and
END the terminal one. A node with an ``error_handler`` routes to its handler node (``error``),
and a handler that names no ``Command`` destination ends the run (``end``), as LangGraph
does. Route labels: ``edge``, ``join``, ``goto``, the ``path_map`` key
(or the ``Literal`` value) of a conditional edge, and ``?`` for a route whose targets
cannot be known: like LangGraph's own drawing, it may lead to any node (SM013 says so).

A compiled graph adds its interrupt points (``interrupt_before``/``interrupt_after`` and
the nodes whose function calls ``langgraph.types.interrupt``): without a checkpointer a
run stops at one for good (SM014, :mod:`verification.foreign_langgraph_interrupts`).
Imported only when a target is a LangGraph graph.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langgraph.constants import END, START
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from verification.events import Origin, return_annotation
from verification.findings import Location
from verification.foreign_graph import Node, assemble_graph
from verification.foreign_langgraph_interrupts import AnyGraph, function_of, interrupt_finding, node_location
from verification.locate import class_location, first_line, function_location
from verification.model import MachineGraph, Row

__all__ = ["langgraph_graph"]

FRAMEWORK = "langgraph"
APPLICABLE = frozenset({f"SM{n:03}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13, 14)})
"""No budgets (SM009: a loop with an exit is bounded by the recursion limit) and no effects (SM010)."""
HINTS = {
    "SM002": "add an edge that leads to the node (add_edge, or a conditional edge's path_map), or remove it",
    "SM004": "add an edge from the node: add_edge(node, END) to finish there, or an edge to go on",
    "SM005": "give the nodes a way to END: a conditional edge out of the loop, or an edge to END",
    "SM006": "add the node with add_node, or fix the name in the edge",
    "SM007": "remove the path_map entry, or let the routing function return it (and name it in its Literal)",
    "SM008": "add the value to the conditional edge's path_map, or stop the routing function returning it",
    "SM013": "annotate the routing function's return type with Literal[...] node names or pass a path_map; "
    "annotate a node returning Command as Command[Literal[...]] or pass destinations=",
    "SM014": "compile(checkpointer=...) so a paused run can be resumed (a subgraph compiled without one "
    "inherits its parent's: ignore SM014 for it, with that reason)",
}

TERMS = {
    "but the table has no row for it: the run would fail with InvalidTransition": "but its path_map "
    "does not route it: the run would fail with KeyError",
    "but the table has no row for them: the run would fail with InvalidTransition": "but its path_map "
    "does not route them: the run would fail with KeyError",
}
"""SM008 in LangGraph's words."""


def _leaves(tp: object, values: set[str], opaque: list[str]) -> None:
    """Collect the ``Literal`` values inside ``tp``; any other leaf type (str, Send, ...) is opaque."""
    if typing.get_origin(tp) is Literal:
        values.update(str(v) for v in typing.get_args(tp))
    elif typing.get_args(tp):
        for arg in typing.get_args(tp):
            _leaves(arg, values, opaque)
    elif tp is not type(None):
        opaque.append(getattr(tp, "__name__", repr(tp)))


def _routes(fn: Callable[..., object] | None) -> frozenset[str] | str:
    """The values a routing function's ``Literal`` return annotation names, or why they cannot be read."""
    if fn is None:
        return "the routing function is not a plain function"
    returned = return_annotation(fn)
    if isinstance(returned, str):
        return returned
    values: set[str] = set()
    opaque: list[str] = []
    _leaves(returned, values, opaque)
    if opaque or not values:
        return f"{fn.__qualname__} returns {', '.join(opaque) or 'no Literal'}, not Literal node names"
    return frozenset(values)


def _unannotated_command(fn: Callable[..., object] | None) -> bool:
    """Whether ``fn`` is annotated to return a ``Command`` without naming its destinations."""
    returned = None if fn is None else return_annotation(fn)
    found: list[bool] = []

    def walk(tp: object) -> None:
        if tp is Command or typing.get_origin(tp) is Command:
            found.append(not any(typing.get_origin(a) is Literal for a in typing.get_args(tp)))
        for arg in typing.get_args(tp):
            walk(arg)

    walk(returned)
    return any(found)


def _edge_line(files: Sequence[str], source: str, target: str) -> Location | None:
    def name(node: str) -> str:
        constant = {START: "START", END: "END"}.get(node)
        quoted = rf"""['"]{re.escape(node)}['"]"""
        return rf"(?:(?:\w+\.)?{constant}|{quoted})" if constant else quoted

    return first_line(files, re.compile(rf"add_edge\(\s*{name(source)}\s*,\s*{name(target)}\s*\)"))


def langgraph_graph(
    value: AnyGraph | CompiledStateGraph[Any, Any, Any, Any], files: Sequence[str] = ()
) -> MachineGraph:
    """Read a built or compiled ``StateGraph``; ``files`` are searched for the lines of ``add_edge`` calls.

    Example:
        >>> from typing import TypedDict
        >>> from langgraph.graph import END, START, StateGraph
        >>> class State(TypedDict):
        ...     n: int
        >>> def bump(state: State) -> State:
        ...     return {"n": state["n"] + 1}
        >>> builder = StateGraph(State).add_node("bump", bump).add_edge(START, "bump").add_edge("bump", END)
        >>> [(r.source, r.event, r.target) for r in langgraph_graph(builder).rows]
        [('__start__', 'edge', 'bump'), ('bump', 'edge', '__end__')]
    """
    compiled = value if isinstance(value, CompiledStateGraph) else None
    builder: AnyGraph = value.builder if isinstance(value, CompiledStateGraph) else value
    declared = [*builder.nodes, END]
    known = {START, *declared}
    rows: list[Row] = []
    emits: dict[str, set[str] | None] = {START: set(), **{n: set() for n in builder.nodes}}
    origins: dict[str, Origin] = {}
    problems: dict[str, list[tuple[str, Location | None]]] = {}
    deciders: dict[str, Location | None] = {}  # a node's routing function, where its routes are decided

    def route(source: str, label: str, target: str, location: Location | None, emitted: bool = True) -> None:
        rows.append(
            Row(
                source=source,
                event=label,
                target=target,
                source_declared=source in known,
                target_declared=target in known and target != START,
                location=location,
            )
        )
        labels = emits.get(source)
        if labels is not None and emitted:
            labels.add(label)

    def unknown(source: str, why: str, location: Location | None) -> None:
        problems.setdefault(source, []).append((why, location))
        for target in declared:
            route(source, "?", target, location)
        emits[source] = None

    for source, target in builder.edges:
        route(source, "edge", target, _edge_line(files, source, target))
    for sources, target in builder.waiting_edges:
        for source in sources:
            route(source, "join", target, None)
    for name, spec in builder.nodes.items():
        where = node_location(builder, name)
        for target in spec.ends or ():
            route(name, "goto", target, where)
        if spec.error_handler_node:  # when the node raises, its error handler runs
            route(name, "error", spec.error_handler_node, where)
        if not spec.ends and _unannotated_command(function_of(spec.runnable)):
            unknown(name, f"node {name} returns a Command whose destinations are not annotated", where)
        elif spec.is_error_handler and not spec.ends:  # a handler that routes nowhere ends the run
            route(name, "end", END, where)
    for source, branches in builder.branches.items():
        for branch_name, branch in branches.items():
            fn = function_of(branch.path)
            where = function_location(fn) if fn else None
            deciders.setdefault(source, where)
            read = _routes(fn)
            if branch.ends is None:
                unknown(source, f"conditional edge {branch_name}: {read}, and it has no path_map", where)
                continue
            for key, target in branch.ends.items():
                route(source, str(key), target, where, emitted=False)
            labels = emits.get(source)
            if labels is not None:  # what the function can return: its Literal, else the path_map's keys
                labels.update(read if isinstance(read, frozenset) else (str(k) for k in branch.ends))
                origins[source] = (
                    "annotation" if isinstance(read, frozenset) else origins.get(source, "declared")
                )
    nodes = [
        Node(
            name=name,
            emits=None if (labels := emits.get(name)) is None else frozenset(labels),
            origin=origins.get(name, "declared"),
            problem="; ".join(why for why, _ in problems.get(name, [])),
            location=next(
                (at for _, at in problems.get(name, []) if at),
                deciders.get(name) or node_location(builder, name),
            ),
        )
        for name in (START, *builder.nodes)
    ]
    if any(r.target == END for r in rows):  # else no route ends: SM005 says so, SM002 need not list END
        nodes.append(Node(name=END, terminal=True))
    found = interrupt_finding(compiled, builder.nodes, HINTS["SM014"]) if compiled is not None else None
    schema = builder.state_schema
    return assemble_graph(
        framework=FRAMEWORK,
        name=compiled.name if compiled is not None else getattr(schema, "__name__", "StateGraph"),
        nodes=nodes,
        initial=START,
        rows=rows,
        applicable=APPLICABLE,
        hints=HINTS,
        terms=TERMS,
        origin=class_location(schema) if isinstance(schema, type) else None,
        findings=(found,) if found else (),
    )
