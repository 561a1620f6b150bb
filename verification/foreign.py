"""Other frameworks' graphs: LangGraph, python-statemachine and transitions, verified like our machines.

:func:`read_foreign` recognises a graph of another framework by the modules its
classes come from, imports that framework's reader (and so the framework) only
then, and turns the graph into the :class:`~verification.model.MachineGraph` every
check reads: nodes or states become states, edges and transitions become rows, with
the file and line of the function or definition that writes them. The properties a
framework lacks the notion of (budgets, effects) are "not applicable" in its report.

The frameworks are optional (the ``verify-foreign`` extra); ``import verification``
imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.foreign_graph import kind_of
from verification.model import MachineGraph

__all__ = ["FRAMEWORKS", "foreign_graph", "framework_of", "read_foreign"]

FRAMEWORKS = ("langgraph", "python-statemachine", "transitions")
"""The foreign frameworks whose graphs the verifier reads."""

_PACKAGES = {"langgraph": "langgraph", "statemachine": "python-statemachine", "transitions": "transitions"}


def framework_of(value: object) -> str | None:
    """The foreign framework ``value`` (an object or a class) comes from, or None; imports nothing.

    Example:
        >>> framework_of(42) is None
        True
    """
    classes = [*type(value).__mro__, *(value.__mro__ if isinstance(value, type) else ())]
    for cls in classes:
        framework = _PACKAGES.get(cls.__module__.partition(".")[0])
        if framework is not None:
            return framework
    return None


def read_foreign(value: object, files: Sequence[str] = ()) -> MachineGraph | str | None:
    """``value`` as a graph model; a message when its framework is known but the object is not a graph.

    None when ``value`` comes from no foreign framework. ``files`` (the module the
    target was imported from) are searched for lines the framework does not record.

    Example:
        >>> read_foreign("not a graph") is None
        True
    """
    framework = framework_of(value)
    if framework == "langgraph":
        from langgraph.graph.state import CompiledStateGraph, StateGraph  # noqa: PLC0415  # optional extra

        from verification.foreign_langgraph import langgraph_graph  # noqa: PLC0415  # imports langgraph

        if isinstance(value, StateGraph | CompiledStateGraph):
            return langgraph_graph(value, files)
        return f"a LangGraph {kind_of(value)} is not a StateGraph (built or compiled)"
    if framework == "python-statemachine":
        from verification.foreign_statemachine import statemachine_graph  # noqa: PLC0415  # optional

        return statemachine_graph(value, files)
    if framework == "transitions":
        from verification.foreign_transitions import transitions_graph  # noqa: PLC0415  # optional

        return transitions_graph(value, files)
    return None


def foreign_graph(value: object, files: Sequence[str] = ()) -> MachineGraph:
    """``value``, a graph of a foreign framework, as a graph model for :func:`~verification.verify_graph`.

    Raises TypeError when ``value`` is not a graph of a framework in :data:`FRAMEWORKS`.

    Example:
        >>> from transitions import Machine
        >>> foreign_graph(Machine(states=["a", "b"], initial="a", transitions=[["go", "a", "b"]])).terminals
        ('b',)
        >>> foreign_graph(42)
        Traceback (most recent call last):
        ...
        TypeError: int is not a graph of langgraph, python-statemachine or transitions
    """
    read = read_foreign(value, files)
    if isinstance(read, MachineGraph):
        return read
    raise TypeError(
        read or f"{kind_of(value)} is not a graph of {', '.join(FRAMEWORKS[:-1])} or {FRAMEWORKS[-1]}"
    )
