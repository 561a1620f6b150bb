"""Agents served over AG-UI in the tests: scripted ReAct and plan-and-execute agents, and a user machine
(no network)."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from agentsm_fn.agents import plan_execute
from agentsm_fn.agents.react import AgentMemory, Event, State
from agentsm_fn.durable import Durable
from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.server.agui import AguiAgent, AguiRequest, plan_execute_agui, react_agui
from agentsm_fn.shell import Shell, StepClock
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool
from tests.durable import machines
from tests.durable.machines import E, Lookup, Order, S

SENT: list[str] = []
"""Who send_email wrote to, in order (the tests read it to see an approved call ran once)."""


@tool(needs_approval=True)
def send_email(to: str, body: str) -> str:
    """Send an email (needs a person's approval).

    Args:
        to: Recipient address.
        body: Message text.
    """
    SENT.append(to)
    return f"sent to {to}"


@tool
def lookup(city: str) -> str:
    """Look up the weather of a city.

    Args:
        city: The city.
    """
    return f"sunny in {city}"


ANSWER = "It is sunny in Paris today, enjoy the walk."


def weather_agent() -> AguiAgent[State, Event, AgentMemory]:
    """Calls lookup, then answers."""
    llm = ScriptedLlm(
        [LlmReply(tool_calls=(ToolCall("call_1", "lookup", {"city": "Paris"}),)), LlmReply(content=ANSWER)]
    )
    agent = AgentBuilder.new("").llm(llm).tools(lookup).build().unwrap()
    return react_agui(agent, "tests.agui.agents:WEATHER")


def email_agent(*replies: LlmReply) -> AguiAgent[State, Event, AgentMemory]:
    """Asks to send an email (a tool that needs approval), then answers."""
    call = ToolCall("call_mail", "send_email", {"to": "team@example.com", "body": "Release on Friday."})
    script = replies or (
        LlmReply(tool_calls=(call,)),
        LlmReply(content="The team has been told about Friday."),
    )
    agent = (
        AgentBuilder.new("")
        .llm(ScriptedLlm(script))
        .tools(send_email)
        .suspend_for_approval()
        .build()
        .unwrap()
    )
    return react_agui(agent, "tests.agui.agents:EMAIL")


SECRET = "Bearer sk-live0123456789abcdefXYZ"
"""A credential a failing performer quotes (it must never reach an AG-UI client)."""


def _order_shell() -> Shell:
    def lookup(effect: Lookup) -> int:
        if effect.item >= 90:
            raise ConnectionError(f"price service refused {SECRET}")
        return 10 + effect.item

    base = machines.performers()
    return Shell(base.on(Lookup, lookup), StepClock(start=1000.0))


def _order(request: AguiRequest) -> Result[Order, FieldProblem]:
    state = request.state
    items = state.get("items") if isinstance(state, Mapping) else None
    if not isinstance(state, Mapping) or not isinstance(items, int):
        return Failure(FieldProblem(field="state.items", detail="the number of items to order is required"))
    over = state.get("approval_over", 1_000_000)
    start = state.get("first_item", 0)
    if not isinstance(over, int) or not isinstance(start, int):
        return Failure(FieldProblem(field="state", detail="approval_over and first_item are integers"))
    return Success(Order(items=items, approval_over=over, next_item=start))


def _total(order: Order) -> JsonValue:
    return {"total": order.total, "approved": order.approved}


ORDERS_AGUI: AguiAgent[S, E, Order] = AguiAgent(
    durable=Durable(name="tests.agui.agents:ORDERS", machine=machines.ORDERS, shell=_order_shell),
    memory=_order,
    result=_total,
)
"""A user machine over AG-UI: its memory comes from the request's state; its approval answers a bool."""


def blocking_agent(release: threading.Event) -> AguiAgent[State, Event, AgentMemory]:
    """Calls a tool that blocks until ``release`` is set, then answers."""

    @tool
    def wait_for_release() -> str:
        """Wait until the test lets the run go on."""
        release.wait(timeout=20)
        return "released"

    llm = ScriptedLlm(
        [LlmReply(tool_calls=(ToolCall("call_w", "wait_for_release", {}),)), LlmReply(content=ANSWER)]
    )
    agent = AgentBuilder.new("").llm(llm).tools(wait_for_release).build().unwrap()
    return react_agui(agent, "tests.agui.agents:BLOCKING")


PLAN = {"goal": "Compare the weather of two cities", "initial_steps": ["look both up", "compare"]}
COMPARED = "Paris and Rome are both sunny today."
PlanAgui = AguiAgent[plan_execute.State, plan_execute.Event, plan_execute.PlanExecuteMemory]


def research_agent(*replies: LlmReply, max_iterations: int = 4) -> PlanAgui:
    """A plan-and-execute agent: plans, looks up two cities in one batch (one call without an id), answers."""
    script = replies or (
        LlmReply(content=json.dumps(PLAN)),
        LlmReply(
            tool_calls=(
                ToolCall("", "lookup", {"city": "Paris"}),
                ToolCall("c_rome", "lookup", {"city": "Rome"}),
            )
        ),
        LlmReply(content=COMPARED),
    )
    agent = AgentFSM(provider=ScriptedLlm(script), tools={"lookup": lookup}, max_iterations=max_iterations)
    return plan_execute_agui(agent, "tests.agui.agents:RESEARCH")
