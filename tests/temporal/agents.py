"""Both built-in agents with LLMs whose reply is a pure function of the request.

A ``ScriptedLlm`` answers in call order, which two workers or a retried attempt would
shuffle; these answer by how far the conversation has got, so every attempt on every
worker gives the same reply (they are retry-safe, as LLM calls are declared).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.llm import AssistantMessage, LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.tools import Tool, tool


class ConversationLlm:
    """The n-th scripted reply for a request whose history holds n assistant turns."""

    def __init__(self, replies: Sequence[LlmReply]) -> None:
        self.replies = tuple(replies)

    def complete(self, request: LlmRequest) -> LlmReply:
        turns = sum(isinstance(m, AssistantMessage) for m in request.messages)
        return self.replies[min(turns, len(self.replies) - 1)]


class PlanningLlm:
    """Plan (a structured call), then call ``search`` once, then answer."""

    def complete(self, request: LlmRequest) -> LlmReply:
        if request.response_schema is not None:
            plan = {"goal": "answer", "required_capabilities": ["search"], "initial_steps": ["search"]}
            return LlmReply(content=json.dumps(plan))
        if not any(isinstance(m, ToolResultMessage) for m in request.messages):
            return LlmReply(tool_calls=(ToolCall("s1", "search", {"query": "pdf"}),))
        return LlmReply(content="Prawn is the usual choice.")


@tool(timeout=5.0)
def search(query: str) -> str:
    """Search the web (offline).

    Args:
        query: What to look for.
    """
    return f"results for {query}"


@tool(timeout=5.0, needs_approval=True)
def book(flight: str) -> str:
    """Book a flight (needs a human's approval).

    Args:
        flight: The flight number.
    """
    return f"booked {flight}"


def react_agent(task: str = "Find and book a flight", *tools: Tool) -> Agent:
    replies = [
        LlmReply(tool_calls=(ToolCall("c1", "search", {"query": "flights"}),)),
        LlmReply(tool_calls=(ToolCall("c2", "book", {"flight": "AF1"}),)),
        LlmReply(content="I booked flight AF1 for you after searching the available flights."),
    ]
    config = AgentConfig(max_steps=8, reflect_every_n_steps=0)
    chosen = tools or (search, book)
    return AgentBuilder.new(task).llm(ConversationLlm(replies)).tools(*chosen).config(config).build().unwrap()


def plan_agent() -> AgentFSM:
    return AgentFSM(provider=PlanningLlm(), tools={"search": search})
