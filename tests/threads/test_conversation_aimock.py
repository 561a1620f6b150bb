"""A conversation through the Python API with a streaming provider (aimock on loopback), on both stores.

Three turns of one thread, one call each: ``chat`` (sync), ``achat`` (a tool call and its result),
``astream_chat`` (text deltas as the provider streams them). aimock's recorded requests show each
turn's LLM request holding the earlier turns, in order, before the new message.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator

import pytest

from agentsm_fn.agents.react import AgentMemory, Event, State, agent_failure
from agentsm_fn.durable import Durable, RunStore, ThreadStore, TurnStatus
from agentsm_fn.providers import openai_provider
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.stream import Finished, LlmTextDelta, RunEvent
from tests.providers.conftest import Aimock, _aimock_cli, aimock_server

__all__ = ["aimock_server"]  # the session fixture, shared with the provider tests

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def aimock(aimock_server: Aimock) -> Iterator[Aimock]:
    aimock_server.reset()
    yield aimock_server


@pytest.fixture(autouse=True)
def _aimock_is_there() -> None:
    if _aimock_cli() is None and os.environ.get("CI") == "true":
        pytest.fail("aimock is missing (run `bash scripts/aimock.sh`) (CI=true: never skipped)")


def weather_agent(aimock: Aimock) -> Durable[State, Event, AgentMemory]:
    provider = openai_provider(
        "test-model", api_key="sk-test", base_url=f"{aimock.base}/v1", stream=True, env={}
    )
    built = (
        AgentBuilder.new("")
        .llm(provider)
        .system_prompt("You are a travel assistant.")
        .tool("get_weather", "Weather for a city", CITY, lambda city: f"rainy in {city}")
        .build()
        .unwrap()
    )
    return Durable(
        name="tests.threads.test_conversation_aimock:WEATHER",
        machine=built.machine,
        shell=built.shell,
        template=built.memory,
        failure=agent_failure,
    )


def _sent(entry: dict[str, object]) -> list[tuple[str, str]]:
    """A recorded request's messages as (role, what they say): content, or the tools called."""
    body = entry.get("body")
    assert isinstance(body, dict)
    shown: list[tuple[str, str]] = []
    for message in body["messages"]:
        calls = message.get("tool_calls") or []
        said = message.get("content") or ",".join(call["function"]["name"] for call in calls)
        shown.append((str(message["role"]), str(said)))
    return shown


def test_each_turns_request_holds_the_earlier_turns_sync_async_and_streamed(
    aimock: Aimock, store: RunStore
) -> None:
    agent = weather_agent(aimock)
    first = agent.chat(store, "trip", "Call me Grace.").unwrap()
    second = asyncio.run(agent.achat(store, "trip", "What is the weather in Rome?")).unwrap()

    async def third() -> list[RunEvent]:
        return [event async for event in agent.astream_chat(store, "trip", "What do you call me?")]

    events = asyncio.run(third())
    last = events[-1]
    assert isinstance(last, Finished)
    deltas = [event.text for event in events if isinstance(event, LlmTextDelta)]
    assert "".join(deltas) == "I call you Grace, as you asked." and len(deltas) > 1
    answers = [first.run.snapshot.memory.final_answer, second.run.snapshot.memory.final_answer]
    assert answers == ["Hello Grace, how can I help you today?", "It is rainy in Rome today, Grace."]
    assert isinstance(store, ThreadStore)
    assert [(t.turn, t.status) for t in store.turns("trip").unwrap()] == [
        (0, TurnStatus.FINISHED),
        (1, TurnStatus.FINISHED),
        (2, TurnStatus.FINISHED),
    ]

    requests = [_sent(entry) for entry in aimock.journal() if entry.get("path") == "/v1/chat/completions"]
    assert len(requests) == 4  # turn 0; turn 1 asks for the tool, then answers; turn 2
    system = ("system", "You are a travel assistant.")
    turn_0 = [("user", "Call me Grace."), ("assistant", "Hello Grace, how can I help you today?")]
    asked = ("user", "What is the weather in Rome?")
    turn_1 = [
        asked,
        ("assistant", "get_weather"),
        ("tool", "SUCCESS: rainy in Rome"),
        ("assistant", "It is rainy in Rome today, Grace."),
    ]
    assert requests[0] == [system, turn_0[0]]
    assert requests[1] == [system, *turn_0, asked]
    assert requests[2] == [system, *turn_0, *turn_1[:3]]
    assert requests[3] == [system, *turn_0, *turn_1, ("user", "What do you call me?")]
