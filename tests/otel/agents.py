"""The agents the tracing tests run (also imported by the child process that resumes a run)."""

from __future__ import annotations

from agentsm_fn.core.observe import RunObserver
from agentsm_fn.llm import LlmReply, ToolCall, Usage
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def search(city: str) -> str:
    return f"{city}: 2,102,650 inhabitants"


def weather(city: str) -> str:
    return f"{city}: 18°C"


def refund(city: str) -> str:
    return f"refunded the trip to {city}"


def parallel_replies() -> list[LlmReply]:
    """Two tool calls in one reply (run in parallel), then the answer."""
    calls = (ToolCall("c1", "search", {"city": "Paris"}), ToolCall("c2", "weather", {"city": "Paris"}))
    usage = Usage(input_tokens=120, output_tokens=30)
    return [
        LlmReply(tool_calls=calls, usage=usage, finish_reason="tool_calls", model="m-1", response_id="r1"),
        LlmReply(
            content="Paris has 2,102,650 inhabitants and it is 18°C.",
            usage=Usage(input_tokens=200, output_tokens=15),
            finish_reason="stop",
            model="m-1",
            response_id="r2",
        ),
    ]


def parallel_agent(observer: RunObserver) -> Agent:
    return (
        AgentBuilder.new("Population and weather of Paris?")
        .system_prompt("Answer in one sentence.")
        .llm(AsyncScriptedLlm(parallel_replies()))
        .model("m")
        .tool("search", "Search.", SCHEMA, search)
        .tool("weather", "Weather.", SCHEMA, weather)
        .observe(observer)
        .build()
        .unwrap()
    )


def approval_replies() -> list[LlmReply]:
    return [
        LlmReply(tool_calls=(ToolCall("c1", "refund", {"city": "Rome"}),), model="m"),
        LlmReply(content="The trip to Rome has been refunded.", model="m"),
    ]


def approval_agent(observer: RunObserver | None, replies: list[LlmReply] | None = None) -> Agent:
    """A refund tool that needs a human's approval (none given: the run suspends)."""
    return (
        AgentBuilder.new("Refund my trip to Rome")
        .llm(AsyncScriptedLlm(approval_replies() if replies is None else replies))
        .model("m")
        .tool("refund", "Refund a trip.", SCHEMA, refund, needs_approval=True)
        .observe(observer)
        .build()
        .unwrap()
    )
