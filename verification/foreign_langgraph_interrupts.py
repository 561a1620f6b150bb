"""LangGraph interrupt points, and where a node's function is: what SM014 reads from a compiled graph.

A compiled graph pauses before or after the nodes it lists (``interrupt_before``,
``interrupt_after``, ``"*"`` for all) and inside every node whose function calls
``langgraph.types.interrupt`` (found in the function's source, the name resolved
through its globals). Without a checkpointer a paused run can never be resumed.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
from collections.abc import Callable, Iterable
from typing import Any

from langgraph.graph.state import CompiledStateGraph, StateGraph
from langgraph.types import interrupt

from verification.findings import Location, PropertyViolation
from verification.locate import function_location

__all__ = ["AnyGraph", "function_of", "interrupt_finding", "node_location"]

AnyGraph = StateGraph[Any, Any, Any, Any]  # the verifier reads names and functions, never the state types


def function_of(runnable: object) -> Callable[..., object] | None:
    """The function a LangGraph node or routing runnable wraps (sync or async), or None.

    Example:
        >>> function_of(object()) is None
        True
    """
    for attribute in ("func", "afunc"):
        fn = getattr(runnable, attribute, None)
        if inspect.isfunction(fn) or inspect.ismethod(fn):
            return typing.cast(Callable[..., object], fn)
    return None


def node_location(builder: AnyGraph, name: str) -> Location | None:
    """Where the function of the node ``name`` is defined, or None (START, END, a subgraph).

    Example:
        >>> from typing import TypedDict
        >>> class State(TypedDict):
        ...     n: int
        >>> node_location(StateGraph(State), "__start__") is None
        True
    """
    fn = function_of(builder.nodes[name].runnable) if name in builder.nodes else None
    return function_location(fn) if fn else None


def _interrupt_lines(fn: Callable[..., object]) -> list[Location]:
    """Where ``fn`` calls ``langgraph.types.interrupt`` (by name or as ``module.interrupt``)."""
    try:
        lines, start = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):
        return []
    scope = getattr(fn, "__globals__", {})
    where = function_location(fn)
    found: list[Location] = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        callee = call.func
        if isinstance(callee, ast.Name):
            target = scope.get(callee.id)
        elif isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
            target = getattr(scope.get(callee.value.id), callee.attr, None)
        else:
            continue
        if target is interrupt and where is not None:
            found.append(Location(where.path, start + call.lineno - 1))
    return found


def interrupt_finding(
    compiled: CompiledStateGraph[Any, Any, Any, Any], nodes: Iterable[str], hint: str
) -> PropertyViolation | None:
    """SM014 when ``compiled`` pauses at one of ``nodes`` yet has no checkpointer to resume from.

    Example:
        >>> from typing import TypedDict
        >>> from langgraph.graph import END, START
        >>> class State(TypedDict):
        ...     n: int
        >>> def step(state: State) -> State:
        ...     return state
        >>> graph = StateGraph(State).add_node("step", step).add_edge(START, "step").add_edge("step", END)
        >>> interrupt_finding(graph.compile(interrupt_before=["step"]), ["step"], "").message[:52]
        'the graph pauses at 1 interrupt point(s) (interrupt_'
        >>> interrupt_finding(graph.compile(), ["step"], "") is None
        True
    """
    if compiled.checkpointer not in (None, False):
        return None
    names = list(nodes)
    points: list[tuple[str, str, Location | None]] = []
    for how, listed in (
        ("before", compiled.interrupt_before_nodes),
        ("after", compiled.interrupt_after_nodes),
    ):
        for node in names if listed == "*" else listed:
            points.append((node, f"interrupt_{how}={node}", node_location(compiled.builder, node)))
    for node in names:
        fn = function_of(compiled.builder.nodes[node].runnable)
        for line in _interrupt_lines(fn) if fn else []:
            points.append((node, f"{node} calls interrupt() at line {line.line}", line))
    if not points:
        return None
    return PropertyViolation(
        code="SM014",
        message=f"the graph pauses at {len(points)} interrupt point(s) ({'; '.join(p[1] for p in points)}) "
        "but was compiled without a checkpointer: a run that reaches one stops and can never be resumed",
        states=tuple(dict.fromkeys(p[0] for p in points)),
        location=next((p[2] for p in points if p[2] is not None), None),
        hint=hint,
    )
