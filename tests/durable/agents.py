"""Runs for the crash test: orders (a user machine) and the ReAct agent on a deterministic LLM.

Every tool execution is appended to ``COUNTS`` (when set) as ``<run id> <tool> <call>``,
so a test can tell how often each call really ran. The LLM answers from the request
alone (how many tool results it holds), so a recovered run gets the same replies as an
uninterrupted one whatever process asks.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import attrs

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
from agentsm_fn.agents.react import AgentConfig, AgentMemory
from agentsm_fn.durable import Durable
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.shell import Shell, StepClock
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.tools import tool
from tests.durable import machines

COUNTS: list[Path] = []
"""The executions log (at most one path), set by the worker and the test."""
RUN: list[str] = [""]
"""The id of the run being performed (tools write it next to each execution)."""
TOOL_CALLS = 4


def log(line: str) -> None:
    """Note one execution; with CRASH_DIE_ON set to this line, die (SIGKILL) right after noting it."""
    if COUNTS:
        with COUNTS[0].open("a", encoding="utf-8") as out:
            out.write(f"{RUN[0]} {line}\n")
    if os.environ.get("CRASH_DIE_ON") == line:
        os.kill(os.getpid(), signal.SIGKILL)


@tool
def add(a: int, b: int) -> int:
    """Add two integers (counted: not retry-safe).

    Args:
        a: First.
        b: Second.
    """
    log(f"add {a}")
    return a + b


class DeterministicLlm:
    """Asks for ``add(n, n)`` until the request holds TOOL_CALLS tool results, then answers."""

    name = "deterministic"

    def complete(self, request: LlmRequest) -> LlmReply:
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        if done < TOOL_CALLS:
            return LlmReply(tool_calls=(ToolCall(f"call_{done}", "add", {"a": done, "b": done}),))
        return LlmReply(content=f"The sums are done: {done} tool results were checked carefully.")


def react_agent_memory() -> AgentMemory:
    return agent().memory


def agent() -> Agent:
    return (
        AgentBuilder.new("Add some numbers")
        .llm(DeterministicLlm())
        .tools(add)
        .config(AgentConfig(max_steps=TOOL_CALLS + 3, reflect_every_n_steps=100))
        .with_clock(StepClock(start=5000.0))
        .build()
        .unwrap()
    )


def _react_shell() -> Shell:
    return agent().shell()


REACT = Durable(name="tests.durable.agents:REACT", machine=agent().machine, shell=_react_shell)


def _orders_shell() -> Shell:
    def counted(path_line: str) -> None:
        log(path_line)

    return Shell(machines.performers(None, counted), StepClock(start=1000.0))


ORDERS = attrs.evolve(machines.DURABLE_ORDERS, name="tests.durable.agents:ORDERS", shell=_orders_shell)

KINDS: dict[str, tuple[Durable[Any, Any, Any], object]] = {
    "orders": (ORDERS, machines.Order(items=3)),
    "react": (REACT, None),
}


def start_memory(kind: str) -> object:
    return react_agent_memory() if kind == "react" else machines.Order(items=3)


class PlanningLlm:
    """A plan for structured requests; then ``add(n, n)`` until the request holds TOOL_CALLS results."""

    name = "deterministic-planner"

    def complete(self, request: LlmRequest) -> LlmReply:
        if request.response_schema is not None:
            return LlmReply(content='{"goal": "add numbers", "initial_steps": ["add", "report"]}')
        done = sum(isinstance(m, ToolResultMessage) for m in request.messages)
        if done < TOOL_CALLS:
            return LlmReply(tool_calls=(ToolCall(f"call_{done}", "add", {"a": done, "b": done}),))
        return LlmReply(content=f"All {done} sums are done.")


def planner() -> AgentFSM:
    return AgentFSM(
        provider=PlanningLlm(), tools={"add": add}, max_iterations=TOOL_CALLS + 4, clock=StepClock()
    )


def _plan_shell() -> Shell:
    return planner().shell()


PLAN = Durable(name="tests.durable.agents:PLAN", machine=PLAN_EXECUTE_MACHINE, shell=_plan_shell)
KINDS["plan"] = (PLAN, None)


def start_memory_of(kind: str) -> object:
    if kind == "plan":
        return planner().memory("Add some numbers")
    return start_memory(kind)
