"""Scripted ReAct agents served over AG-UI in the tests (no network: the LLM is scripted)."""

from __future__ import annotations

from agentsm_fn.agents.react import AgentMemory, Event, State
from agentsm_fn.agui import AguiAgent, react_agui
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool

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
