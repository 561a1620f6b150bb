"""The agent's requests on the wire: real tool turns encode correctly for every provider,
and a whole run works through the real OpenAI-compatible provider over an in-process transport."""

from __future__ import annotations

import json
from typing import Any

import attrs
import httpx

from agentsm_fn.agents.react import AgentMemory, HistoryEntry, ReactCompleted
from agentsm_fn.agents.react.prompt import planning_request
from agentsm_fn.llm import ToolCall
from agentsm_fn.providers import AnthropicCodec, OllamaCodec, OpenAiCodec, openai_provider
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.tools import ToolDef

SEARCH = ToolDef(
    name="search",
    description="Search",
    parameters={"type": "object", "properties": {"q": {"type": "string"}}},
)


def _memory() -> AgentMemory:
    history = [
        HistoryEntry(
            step=1, tool=ToolCall("a", "search", {"q": "x"}), observation="SUCCESS: 2.1M", success=True
        ),
        HistoryEntry(
            step=1, tool=ToolCall("b", "search", {"q": "y"}), observation="ERROR: E: bad", success=False
        ),
    ]
    memory = AgentMemory.new("Population of Paris?").with_system_prompt("Be precise.").with_tools([SEARCH])
    return attrs.evolve(memory, history=history)


def _body(codec: OpenAiCodec | AnthropicCodec | OllamaCodec) -> dict[str, object]:
    body = json.loads(codec.encode(planning_request(_memory()), stream=False).body)
    assert isinstance(body, dict)
    return body


def test_openai_wire_has_assistant_tool_calls_then_tool_messages() -> None:
    messages = _body(OpenAiCodec(model="m"))["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["a", "b"]
    assert [m["tool_call_id"] for m in messages[3:]] == ["a", "b"]


def test_anthropic_wire_alternates_user_and_assistant() -> None:
    body = _body(AnthropicCodec(model="m"))
    messages = body["messages"]
    assert isinstance(messages, list)
    assert body["system"] == "Be precise."
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    results = messages[2]["content"]
    assert [r["tool_use_id"] for r in results] == ["a", "b"]
    assert results[1]["is_error"] is True


def test_ollama_wire_has_tool_messages() -> None:
    messages = _body(OllamaCodec(model="m"))["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]


def _chat_reply(message: dict[str, object]) -> dict[str, object]:
    return {
        "id": "r",
        "object": "chat.completion",
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def test_a_run_through_the_real_openai_provider() -> None:
    seen: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        seen.append(body)
        if len(seen) == 1:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {"name": "search", "arguments": '{"q":"Paris"}'},
            }
            return httpx.Response(200, json=_chat_reply({"content": None, "tool_calls": [call]}))
        return httpx.Response(200, json=_chat_reply({"content": "Paris has about 2.1 million inhabitants."}))

    with httpx.Client(transport=httpx.MockTransport(server)) as client:
        provider = openai_provider(
            "gpt-test", api_key="sk-test", base_url="http://127.0.0.1:9/v1", client=client, env={}
        )
        agent = (
            AgentBuilder.new("Population of Paris?")
            .llm(provider)
            .tool(
                "search",
                "Search",
                {"type": "object", "properties": {"q": {"type": "string"}}},
                lambda q: "2.1M",
            )
            .build()
            .unwrap()
        )
        done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert done.answer == "Paris has about 2.1 million inhabitants."
    assert done.memory.total_usage.total_tokens == 30
    assert [m["role"] for m in seen[1]["messages"]] == ["user", "assistant", "tool"]
    assert "sk-test" not in done.trace.to_json()
