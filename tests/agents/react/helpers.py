"""Builders shared by the ReAct tests (the seed's test helpers, 000 section 8)."""

from __future__ import annotations

from typing import Any

import attrs
from returns.result import Result

from agentsm_fn.agents.react import AgentConfig, AgentMemory, Event
from agentsm_fn.core import Fault, Perform
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, LlmRequest, ToolCall, Usage
from agentsm_fn.tools import ToolDef

SEARCH = ToolDef(
    name="search",
    description="Search the web",
    parameters={
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
    },
    timeout=5.0,
)
CALCULATOR = ToolDef(
    name="calculator",
    description="Evaluate arithmetic",
    parameters={
        "type": "object",
        "properties": {"expression": {"type": "string"}},
        "required": ["expression"],
    },
)
DELETE = ToolDef(name="delete_file", description="Delete a file", needs_approval=True)


def make_memory(**changes: Any) -> AgentMemory:
    """A memory for "test task" that knows search, calculator and delete_file."""
    memory = AgentMemory.new("test task").with_tools([SEARCH, CALCULATOR, DELETE])
    config = changes.pop("config", None)
    if isinstance(config, AgentConfig):
        memory = memory.with_config(config)
    return attrs.evolve(memory, **changes)


def call(name: str = "search", call_id: str = "c1", **arguments: object) -> ToolCall:
    if not arguments and name == "search":
        arguments = {"query": "capital of France"}
    return ToolCall(call_id, name, arguments)


def tool_reply(*calls: ToolCall, confidence: float = 1.0, usage: Usage | None = None) -> LlmReply:
    return LlmReply(tool_calls=calls or (call(),), confidence=confidence, usage=usage or Usage())


def answer(text: str = "Paris is the capital of France.", usage: Usage | None = None) -> LlmReply:
    return LlmReply(content=text, usage=usage or Usage())


def llm_failure(message: str = "boom") -> LlmFailure:
    return LlmFailure(kind=LlmFailureKind.CONNECTION, message=message)


def emitted(result: Result[object, Fault]) -> tuple[Event, AgentMemory]:
    """The (event, memory) of a handler result that emitted."""
    value = result.unwrap()
    assert isinstance(value, tuple), f"expected an emitted event, got {value!r}"
    event, memory = value
    assert isinstance(event, Event)
    assert isinstance(memory, AgentMemory)
    return event, memory


def requested(result: Result[object, Fault]) -> Perform[object, AgentMemory]:
    """The effect request of a handler result that performs."""
    value = result.unwrap()
    assert isinstance(value, Perform), f"expected an effect request, got {value!r}"
    assert isinstance(value.memory, AgentMemory)
    return value


def llm_request(result: Result[object, Fault]) -> LlmRequest:
    """The LLM request of a handler result that performs an LlmCall."""
    effect = requested(result).effect
    assert isinstance(effect, LlmCall)
    return effect.request
