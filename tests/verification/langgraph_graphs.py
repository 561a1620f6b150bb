"""Real LangGraph graphs for the verifier's tests: a sound one and one per defect the verifier finds.

Each is built with the real library, as a user writes it; the tests name them
``tests.verification.langgraph_graphs:NAME`` on the command line, and read the lines
the verifier must report with :func:`line_of`.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Literal, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt


class Chat(TypedDict):
    steps: Annotated[list[str], operator.add]


def agent(state: Chat) -> Chat:
    return {"steps": ["agent"]}


def tools(state: Chat) -> Chat:
    return {"steps": ["tools"]}


def review(state: Chat) -> Chat:
    approved = interrupt("run the tools?")
    return {"steps": [f"review:{approved}"]}


def should_continue(state: Chat) -> Literal["tools", "__end__"]:
    return "tools" if len(state["steps"]) < 4 else "__end__"


def _react() -> StateGraph[Chat, None, Chat, Chat]:
    graph = StateGraph(Chat)
    graph.add_node("agent", agent)
    graph.add_node("review", review)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", should_continue, {"tools": "review", END: END})
    graph.add_edge("review", "tools")
    graph.add_edge("tools", "agent")
    return graph


REACT = _react().compile(checkpointer=InMemorySaver(), interrupt_before=["tools"])
"""Sound: agent loops through a human review and the tools until it routes to END."""

REACT_WITHOUT_CHECKPOINTER = _react().compile()
"""SM014: review calls interrupt(), but nothing can resume the run."""


def _unreachable() -> StateGraph[Chat, None, Chat, Chat]:
    graph = _react()
    graph.add_node("forgotten", tools)
    graph.add_edge("forgotten", END)
    return graph


UNREACHABLE = _unreachable()
"""SM002: no edge leads to forgotten."""

DEAD_END = StateGraph(Chat)
DEAD_END.add_node("agent", agent)
DEAD_END.add_node("tools", tools)
DEAD_END.add_edge(START, "agent")
DEAD_END.add_edge("agent", "tools")
"""SM004: tools has no edge out (the run stops there, never reaching END)."""

LIVELOCK = StateGraph(Chat)
LIVELOCK.add_node("agent", agent)
LIVELOCK.add_node("tools", tools)
LIVELOCK.add_edge(START, "agent")
LIVELOCK.add_edge("agent", "tools")
LIVELOCK.add_edge("tools", "agent")
"""SM005: agent and tools call each other forever: no edge leaves the loop."""

TYPO = StateGraph(Chat)
TYPO.add_node("agent", agent)
TYPO.add_edge(START, "agent")
TYPO.add_edge("agent", "toolz")
"""SM006: an edge to a node that was never added (compile() would refuse it; the builder is verified)."""


def guess(state: Chat) -> str:
    return "agent"


UNKNOWN_ROUTE = StateGraph(Chat)
UNKNOWN_ROUTE.add_node("agent", agent)
UNKNOWN_ROUTE.add_edge(START, "agent")
UNKNOWN_ROUTE.add_conditional_edges("agent", guess)
"""SM013: guess returns a str and the edge has no path_map: its targets cannot be known."""


def triage(state: Chat) -> Literal["answer", "escalate", "drop"]:
    return "answer"


def _triage() -> StateGraph[Chat, None, Chat, Chat]:
    graph = StateGraph(Chat)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_edge("tools", END)
    return graph


MISSING_ROUTE = _triage()
MISSING_ROUTE.add_conditional_edges("agent", triage, {"answer": END, "escalate": "tools"})
"""SM008: triage can return "drop", which the path_map does not route."""

DEAD_ROUTE = _triage()
DEAD_ROUTE.add_conditional_edges(
    "agent", triage, {"answer": END, "escalate": "tools", "drop": END, "retry": "agent"}
)
"""SM007: the path_map routes "retry", which triage never returns."""


def hand_off(state: Chat) -> Command[Literal["tools"]]:
    return Command(goto="tools")


def wander(state: Chat) -> Command:  # type: ignore[type-arg]  # the defect: Command names no destination
    return Command(goto="tools")


def _commands(first: object) -> StateGraph[Chat, None, Chat, Chat]:
    graph = StateGraph(Chat)
    graph.add_node("agent", first)  # type: ignore[call-overload]  # hand_off or wander, both node functions
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_edge("tools", END)
    return graph


COMMAND = _commands(hand_off).compile()
"""Sound: agent hands off to tools with a Command whose destination is annotated."""

UNANNOTATED_COMMAND = _commands(wander)
"""SM013: wander returns a Command whose destinations are not annotated."""


def fan_out(state: Chat) -> list[Send]:
    return [Send("tools", {"steps": [str(n)]}) for n in range(2)]


FAN_OUT = StateGraph(Chat)
FAN_OUT.add_node("agent", agent)
FAN_OUT.add_node("tools", tools)
FAN_OUT.add_edge(START, "agent")
FAN_OUT.add_conditional_edges("agent", fan_out, ["tools"])
FAN_OUT.add_edge("tools", END)
"""Sound: Send targets are runtime values, and the path_map lists the nodes they may name."""


def line_of(text: str) -> int:
    """The line of this file that contains ``text`` (the tests expect findings there)."""
    lines = Path(__file__).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)
