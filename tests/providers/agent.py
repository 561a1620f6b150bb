"""A small tool-using agent on the core API, to drive whole conversations through each provider.

Think (an ``LlmCall``) -> Act (run every requested tool, in order) -> Think ...
until the model answers or the call fails. History is kept as real tool-call
messages, so every provider must encode assistant tool calls and their results.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn import (
    Effect,
    Fault,
    Machine,
    Perform,
    Performers,
    define_machine,
    effectful,
    emit,
    perform,
    pure,
)
from agentsm_fn.llm import (
    AssistantMessage,
    LlmCall,
    LlmFailure,
    LlmOutcome,
    LlmRequest,
    Message,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)


class S(enum.Enum):
    START = "Start"
    THINK = "Think"
    ACT = "Act"
    DONE = "Done"
    FAILED = "Failed"


class E(enum.Enum):
    BEGIN = "begin"
    TOOLS_REQUESTED = "tools_requested"
    ANSWERED = "answered"
    LLM_FAILED = "llm_failed"
    TOOLS_RAN = "tools_ran"


@attrs.frozen
class RunTools(Effect[tuple[ToolResultMessage, ...]]):
    """Run these tool calls; the outcome is one result message per call."""

    outcome_types: ClassVar[tuple[type, ...]] = (tuple,)
    calls: tuple[ToolCall, ...]


TOOLS = (
    ToolSpec(
        "get_weather", "Weather for a city", {"type": "object", "properties": {"city": {"type": "string"}}}
    ),
    ToolSpec("lookup", "Look a key up", {"type": "object", "properties": {"key": {"type": "string"}}}),
)


@attrs.frozen(kw_only=True)
class Mem:
    messages: tuple[Message, ...]
    pending: tuple[ToolCall, ...] = ()
    answer: str = ""
    error: str = ""
    llm_calls: int = 0


def start(m: Mem) -> Result[tuple[Literal[E.BEGIN], Mem], Fault]:
    return emit(E.BEGIN, m)


def think(m: Mem) -> Result[tuple[E, Mem] | Perform[LlmOutcome, Mem], Fault]:
    return perform(LlmCall(LlmRequest(model="", messages=m.messages, tools=TOOLS), purpose="think"), m)


def thought(m: Mem, outcome: LlmOutcome) -> Result[tuple[E, Mem] | Perform[LlmOutcome, Mem], Fault]:
    m = attrs.evolve(m, llm_calls=m.llm_calls + 1)
    if isinstance(outcome, LlmFailure):
        return emit(E.LLM_FAILED, attrs.evolve(m, error=outcome.describe()))
    if outcome.is_tool_call:
        turn = AssistantMessage(content=outcome.content, tool_calls=outcome.tool_calls)
        return emit(
            E.TOOLS_REQUESTED, attrs.evolve(m, messages=(*m.messages, turn), pending=outcome.tool_calls)
        )
    return emit(E.ANSWERED, attrs.evolve(m, answer=outcome.content))


def act(m: Mem) -> Result[tuple[E, Mem] | Perform[tuple[ToolResultMessage, ...], Mem], Fault]:
    return perform(RunTools(m.pending), m)


def acted(
    m: Mem, results: tuple[ToolResultMessage, ...]
) -> Result[tuple[E, Mem] | Perform[tuple[ToolResultMessage, ...], Mem], Fault]:
    return emit(E.TOOLS_RAN, attrs.evolve(m, messages=(*m.messages, *results), pending=()))


MACHINE: Machine[S, E, Mem] = define_machine(
    states=S,
    events=E,
    initial=S.START,
    terminals={S.DONE, S.FAILED},
    table={
        (S.START, E.BEGIN): S.THINK,
        (S.THINK, E.TOOLS_REQUESTED): S.ACT,
        (S.THINK, E.ANSWERED): S.DONE,
        (S.THINK, E.LLM_FAILED): S.FAILED,
        (S.ACT, E.TOOLS_RAN): S.THINK,
    },
    handlers={S.START: pure(start), S.THINK: effectful(think, thought), S.ACT: effectful(act, acted)},
    name="provider-test-agent",
)

WEATHER = {"Paris": "sunny", "Rome": "rainy"}


def run_tools(effect: RunTools) -> tuple[ToolResultMessage, ...]:
    out: list[ToolResultMessage] = []
    for call in effect.calls:
        if call.name == "get_weather":
            out.append(
                ToolResultMessage(call.id, call.name, WEATHER.get(str(call.arguments.get("city")), "unknown"))
            )
        else:
            out.append(ToolResultMessage(call.id, call.name, f"value of {call.arguments.get('key')}"))
    return tuple(out)


def tool_performers() -> Performers:
    async def arun_tools(effect: RunTools) -> tuple[ToolResultMessage, ...]:
        return run_tools(effect)

    return Performers().on(RunTools, run_tools).on_async(RunTools, arun_tools)


def memory(question: str) -> Mem:
    return Mem(messages=(UserMessage(question),))
