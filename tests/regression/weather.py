"""A weather assistant on a live model (any OpenAI-compatible server: aimock in the tests), in two versions.

The model is asked with the question and a ``get_weather`` tool; a tool call is answered from a
table, and the model's next reply is the answer. ``WEATHER`` is the code a recording is made with;
``WEATHER_V2`` is an intended change: the tool's description says more, so every request differs
from the first step on. The provider is read from the environment when a run starts
(``OPENAI_BASE_URL``, ``OPENAI_API_KEY``), as a deployed assistant would; ``CLIENT`` is the HTTP
client runs in this process share (a test closes it).
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
import httpx
from returns.result import Result

from agentsm_fn.core import Effect, Effectful, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.llm import (
    AssistantMessage,
    LlmCall,
    LlmOutcome,
    LlmReply,
    LlmRequest,
    Message,
    SystemMessage,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentsm_fn.providers import openai_provider
from agentsm_fn.shell import Performers, Shell, StepClock
from agentsm_fn.shell.react_performers import llm_performers


class S(enum.Enum):
    ASKING = "asking"
    LOOKING = "looking"
    DONE = "done"


class E(enum.Enum):
    CALLED = "called"
    ANSWERED = "answered"
    LOOKED = "looked"
    FAILED = "failed"


@attrs.frozen
class Forecast(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    city: str


@attrs.frozen(kw_only=True)
class Chat:
    question: str
    messages: tuple[Message, ...] = ()
    call_id: str = ""
    city: str = ""
    answer: str = ""


SYSTEM = "You answer questions about the weather."
FORECASTS = {"Paris": "sunny", "Rome": "rainy"}


def asker(description: str) -> Effectful[E, Chat, LlmOutcome]:
    """The asking state: the question and the conversation so far, and a tool described so."""
    tool = ToolSpec(
        "get_weather", description, {"type": "object", "properties": {"city": {"type": "string"}}}
    )

    def ask(chat: Chat) -> Result[Perform[LlmOutcome, Chat], Fault]:
        messages = chat.messages or (SystemMessage(SYSTEM), UserMessage(chat.question))
        request = LlmRequest(model="test-model", messages=messages, tools=(tool,))
        return perform(LlmCall(request, purpose="answer"), attrs.evolve(chat, messages=messages))

    def replied(chat: Chat, outcome: LlmOutcome) -> Result[tuple[E, Chat], Fault]:
        if not isinstance(outcome, LlmReply):
            return emit(E.FAILED, attrs.evolve(chat, answer=f"the model failed: {outcome.message}"))
        said = AssistantMessage(content=outcome.content, tool_calls=outcome.tool_calls)
        chat = attrs.evolve(chat, messages=(*chat.messages, said))
        if outcome.tool_calls:
            call = outcome.tool_calls[0]
            return emit(
                E.CALLED, attrs.evolve(chat, call_id=call.id, city=str(call.arguments.get("city", "")))
            )
        return emit(E.ANSWERED, attrs.evolve(chat, answer=outcome.content))

    return effectful(ask, replied)


def look(chat: Chat) -> Result[Perform[str, Chat], Fault]:
    return perform(Forecast(chat.city), chat)


def looked(chat: Chat, forecast: str) -> Result[tuple[Literal[E.LOOKED], Chat], Fault]:
    result = ToolResultMessage(tool_call_id=chat.call_id, name="get_weather", content=forecast)
    return emit(E.LOOKED, attrs.evolve(chat, messages=(*chat.messages, result)))


def weather_machine(description: str) -> Machine[S, E, Chat]:
    return define_machine(
        name="weather",
        states=S,
        events=E,
        initial=S.ASKING,
        terminals={S.DONE},
        table={
            (S.ASKING, E.CALLED): S.LOOKING,
            (S.ASKING, E.ANSWERED): S.DONE,
            (S.ASKING, E.FAILED): S.DONE,
            (S.LOOKING, E.LOOKED): S.ASKING,
        },
        handlers={S.ASKING: asker(description), S.LOOKING: effectful(look, looked)},
    )


CLIENT: list[httpx.Client] = []


def shell() -> Shell:
    """The live model from the environment, the forecasts from a table, a step clock."""
    if not CLIENT:
        CLIENT.append(httpx.Client())
    model = openai_provider("test-model", client=CLIENT[0])
    forecasts = Performers().on(Forecast, lambda effect: FORECASTS.get(effect.city, "unknown"))
    performers = llm_performers(model).merge(forecasts)
    return Shell(performers, StepClock(start=2000.0))


WEATHER = Durable(
    name="tests.regression.weather:WEATHER", machine=weather_machine("Weather for a city"), shell=shell
)
WEATHER_V2 = Durable(
    name="tests.regression.weather:WEATHER_V2",
    machine=weather_machine("Today's weather for a city, in one word"),
    shell=shell,
)
