"""The reference workload as a LangGraph ``StateGraph``, checkpointed by a saver after every step.

The nodes call the engine benchmark's scripted LLM and tool (``ENGINE.LLM``, ``ENGINE.tool``),
so LangGraph and the durable runs do the same work. The savers come from the ``bench`` extra
(``langgraph-checkpoint-sqlite``, ``langgraph-checkpoint-postgres``), imported by name: CI does
not install it, and mypy checks this file there.
"""

from __future__ import annotations

import importlib
import importlib.util
import operator
from collections.abc import Callable
from types import ModuleType
from typing import Annotated, Any, TypedDict


class GraphState(TypedDict):
    step: int
    pending: str
    observation: str
    answer: str
    history: Annotated[list[str], operator.add]


def has(module: str) -> bool:
    """Whether ``module`` (a saver's package) is installed."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # its parent package is missing
        return False


def langgraph_run(engine: ModuleType, saver: Any) -> Callable[[int], None]:
    """One run of the workload at K on LangGraph with ``saver``, a new thread each time."""
    graphs: Any = importlib.import_module("langgraph.graph")

    def planning(state: GraphState) -> dict[str, Any]:
        reply = engine.LLM()
        if reply:
            return {"step": state["step"] + 1, "pending": reply}
        return {"step": state["step"] + 1, "pending": "", "answer": "done"}

    def acting(state: GraphState) -> dict[str, Any]:
        return {"observation": engine.tool(state["pending"])}

    def observing(state: GraphState) -> dict[str, Any]:
        return {"history": [f"{state['pending']}: {state['observation']}"], "pending": ""}

    graph = graphs.StateGraph(GraphState)
    graph.add_node("planning", planning)
    graph.add_node("acting", acting)
    graph.add_node("observing", observing)
    graph.add_edge(graphs.START, "planning")
    graph.add_conditional_edges("planning", lambda s: "acting" if s["pending"] else graphs.END)
    graph.add_edge("acting", "observing")
    graph.add_edge("observing", "planning")
    app = graph.compile(checkpointer=saver)
    counter = iter(range(10**9))

    def one(k: int) -> None:
        engine.LLM.reset(k)
        config = {"configurable": {"thread_id": f"t{next(counter)}"}, "recursion_limit": 4 * k + 10}
        state = app.invoke({"step": 0, "pending": "", "observation": "", "answer": "", "history": []}, config)
        assert len(state["history"]) == k

    return one
