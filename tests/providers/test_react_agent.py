"""The real ReAct agent (agentsm_fn.agents.react) through each provider, against aimock."""

from __future__ import annotations

import json

import pytest
from returns.result import Success

from agentsm_fn.agents.react import State
from agentsm_fn.agents.react.result import ReactCompleted
from agentsm_fn.providers import HttpProvider, TextDelta
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import PROVIDERS, WIRE, make, validate_journal

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WEATHER = {"Paris": "sunny", "Rome": "rainy"}


def weather(city: str) -> str:
    return WEATHER.get(city, "unknown")


def agent_for(task: str, provider: HttpProvider) -> AgentBuilder:
    return AgentBuilder.new(task).llm(provider).tool("get_weather", "Weather for a city", SCHEMA, weather)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", PROVIDERS)
def test_react_agent_single_tool_call(kind: str, stream: bool, aimock: Aimock) -> None:
    deltas: list[object] = []
    provider = make(kind, aimock, Sleeps(), stream=stream, on_event=deltas.append)
    result = agent_for("What is the weather in Paris?", provider).build().unwrap().run()
    assert isinstance(result, Success)
    done = result.unwrap()
    assert isinstance(done, ReactCompleted) and done.state is State.Done
    assert done.answer == "It is sunny in Paris."
    sent = validate_journal(aimock)
    assert len(sent) == 2 and "sunny" in json.dumps(sent[1][1])
    if stream:
        assert "".join(d.text for d in deltas if isinstance(d, TextDelta)) == "It is sunny in Paris."


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_react_agent_parallel_tool_calls_async(kind: str, aimock: Aimock) -> None:
    async with WIRE.async_client() as client:
        provider = make(kind, aimock, Sleeps(), async_client=client)
        result = await agent_for("Please compare Paris and Rome", provider).build().unwrap().arun()
    done = result.unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == "Paris is sunny and Rome is rainy."
    sent = validate_journal(aimock)
    second = json.dumps(sent[-1][1])
    assert "sunny" in second and "rainy" in second


@pytest.mark.parametrize("kind", PROVIDERS)
def test_react_agent_survives_a_529_through_the_provider_retries(kind: str, aimock: Aimock) -> None:
    sleeps = Sleeps()
    aimock.error_next(529, {"message": "Overloaded", "type": "overloaded_error"})
    result = agent_for("What is the weather in Paris?", make(kind, aimock, sleeps)).build().unwrap().run()
    done = result.unwrap()
    assert isinstance(done, ReactCompleted) and done.answer == "It is sunny in Paris."
    assert sleeps.delays == [0.5]
