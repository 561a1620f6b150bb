"""Real deltas: a ReAct agent whose OpenAI-compatible provider streams from aimock (on loopback), served
over AG-UI and read by the official client: its text arrives as TEXT_MESSAGE_CONTENT deltas and its tool
call's arguments as TOOL_CALL_ARGS fragments, as the provider decodes them."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest

from agentsm_fn.providers import openai_provider
from agentsm_fn.server.agui import AguiAgent, react_agui
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.agui.conftest import Lines, Served
from tests.providers.conftest import Aimock, _aimock_cli, aimock_server

__all__ = ["aimock_server"]  # the session fixture, shared with the provider tests

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.fixture
def aimock(aimock_server: Aimock) -> Iterator[Aimock]:
    aimock_server.reset()
    yield aimock_server


@pytest.fixture(autouse=True)
def _aimock_is_there() -> None:
    if _aimock_cli() is None and os.environ.get("CI") == "true":
        pytest.fail("aimock is missing (run `bash scripts/aimock.sh`) (CI=true: never skipped)")


def test_streamed_text_and_tool_call_arguments_reach_the_client_as_deltas(
    serve: Serve, client: Client, aimock: Aimock
) -> None:
    provider = openai_provider(
        "test-model", api_key="sk-test", base_url=f"{aimock.base}/v1", stream=True, env={}
    )
    agent = (
        AgentBuilder.new("")
        .llm(provider)
        .tool("get_weather", "Weather for a city", SCHEMA, lambda city: "sunny")
        .build()
        .unwrap()
    )
    served_agent = react_agui(agent, "tests.agui.test_streaming:WEATHER")
    served = serve([served_agent])
    plan = {
        "url": served.url(f"/agui/{served_agent.name}"),
        "threadId": "stream",
        "messages": [{"id": "u", "role": "user", "content": "What is the weather in Paris?"}],
        "runs": [{"runId": "s-1"}],
    }
    lines = client(plan)
    events = [line["event"] for line in lines if "event" in line]
    text = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert "".join(text) == "It is sunny in Paris." and len(text) > 1, text
    args = [e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS"]
    assert json.loads("".join(args)) == {"city": "Paris"}
    types = [e["type"] for e in events]
    assert types.count("TEXT_MESSAGE_START") == types.count("TEXT_MESSAGE_END") == 1
    assert types.count("TOOL_CALL_START") == types.count("TOOL_CALL_END") == 1
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"] == "It is sunny in Paris."
