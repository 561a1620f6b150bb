"""Builders shared by the plan-and-execute tests: replies, memories, agents on the scripted LLM."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
from returns.result import Result

from agentsm_fn.agents.plan_execute import Event, PlanExecuteConfig, PlanExecuteMemory, PlanExecutePolicy
from agentsm_fn.core import Fault, Perform
from agentsm_fn.llm import (
    LlmFailure,
    LlmFailureKind,
    LlmOutcome,
    LlmReply,
    ToolCall,
    ToolSpec,
    Usage,
)
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm
from agentsm_fn.tools import Tool, ToolRegistry
from agentsm_fn.tools.registry import ToolFn


def scripted(*outcomes: LlmOutcome) -> AsyncScriptedLlm:
    """The shell's scripted LLM (sync and async): outcomes in order, every request recorded."""
    return AsyncScriptedLlm(outcomes)


def plan_reply(
    goal: str = "Find the best PDF library for Ruby",
    steps: Sequence[str] = ("search for libraries", "read the best candidate"),
    capabilities: Sequence[str] = ("search", "read"),
    usage: Usage | None = None,
) -> LlmReply:
    body = {"goal": goal, "required_capabilities": list(capabilities), "initial_steps": list(steps)}
    return LlmReply(content=json.dumps(body), usage=usage or Usage())


def decision_reply(proceed: bool, reason: str = "the plan is sound") -> LlmReply:
    return LlmReply(content=json.dumps({"continue": proceed, "reason": reason}))


def call(name: str = "search", call_id: str = "c1", **arguments: object) -> ToolCall:
    if not arguments and name == "search":
        arguments = {"query": "ruby pdf"}
    if not arguments and name == "read":
        arguments = {"url": "https://example.org/prawn"}
    return ToolCall(call_id, name, arguments)


def tool_reply(*calls: ToolCall, usage: Usage | None = None) -> LlmReply:
    return LlmReply(tool_calls=calls or (call(),), usage=usage or Usage())


def answer(text: str = "Prawn is the best PDF library for Ruby.", usage: Usage | None = None) -> LlmReply:
    return LlmReply(content=text, usage=usage or Usage())


def failure(kind: LlmFailureKind = LlmFailureKind.CONNECTION, message: str = "boom") -> LlmFailure:
    return LlmFailure(kind=kind, message=message)


def seed_tools(log: list[str] | None = None) -> dict[str, ToolFn]:
    """The seed's registry: search(query:) and read(url:)."""
    calls = log if log is not None else []

    def search(query: str) -> dict[str, str]:
        """Search the web."""
        calls.append(f"search:{query}")
        return {"results": f"Search results for: {query}"}

    def read(url: str) -> dict[str, str]:
        """Read a web page."""
        calls.append(f"read:{url}")
        return {"content": f"Content from: {url}"}

    return {"search": search, "read": read}


SEARCH_SPEC = ToolSpec(
    "search",
    "Search the web",
    {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
)
READ_SPEC = ToolSpec(
    "read",
    "Read a web page",
    {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
)


def build_agent(
    provider: AsyncScriptedLlm,
    *,
    max_iterations: int = 20,
    tools: Mapping[str, ToolFn | Tool] | ToolRegistry | None = None,
    **options: Any,
) -> AgentFSM:
    """The seed's ``build_agent``: search and read tools, a scripted provider, a step clock."""
    options.setdefault("clock", StepClock(start=1000.0, step=1.0))
    return AgentFSM(
        provider=provider,
        tools=seed_tools() if tools is None else tools,
        max_iterations=max_iterations,
        **options,
    )


def memory(**changes: Any) -> PlanExecuteMemory:
    """A memory knowing search and read, with any field changed."""
    config = changes.pop("config", None)
    policy = changes.pop("policy", None)
    base = PlanExecuteConfig(tools=(SEARCH_SPEC, READ_SPEC))
    if isinstance(config, PlanExecuteConfig):
        base = config
    if isinstance(policy, PlanExecutePolicy):
        base = attrs.evolve(base, policy=policy)
    return attrs.evolve(PlanExecuteMemory(input="Find the best PDF library for Ruby", config=base), **changes)


def moved(result: Result[Any, Fault]) -> tuple[Event, PlanExecuteMemory]:
    """The (event, memory) of a handler's transition; fails the test on anything else."""
    value = result.unwrap()
    assert isinstance(value, tuple), f"expected a transition, got {value!r}"
    event, mem = value
    assert isinstance(event, Event) and isinstance(mem, PlanExecuteMemory)
    return event, mem


def requested(result: Result[Any, Fault]) -> Perform[object, PlanExecuteMemory]:
    """The effect request of a handler; fails the test on anything else."""
    value = result.unwrap()
    assert isinstance(value, Perform), f"expected an effect request, got {value!r}"
    return value
