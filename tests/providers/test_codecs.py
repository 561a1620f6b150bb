"""Request encoding: real tool-call history per provider, Anthropic's turn rules, Ollama's endpoints."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm import (
    AssistantMessage,
    LlmRequest,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentsm_fn.providers import AnthropicCodec, OllamaCodec, OpenAiCodec, build_turns
from agentsm_fn.providers.anthropic_turns import MISSING_RESULT
from tests.providers.conftest import requires_shared

TOOLS = (
    ToolSpec(
        "get_weather", "Weather for a city", {"type": "object", "properties": {"city": {"type": "string"}}}
    ),
)
HISTORY: tuple[Message, ...] = (
    SystemMessage("You are terse."),
    UserMessage("Compare Paris and Rome"),
    AssistantMessage(
        content="Checking both.",
        tool_calls=(
            ToolCall("c1", "get_weather", {"city": "Paris"}),
            ToolCall("c2", "get_weather", {"city": "Rome"}),
        ),
    ),
    ToolResultMessage("c1", "get_weather", "sunny"),
    ToolResultMessage("c2", "get_weather", "rain", is_error=True),
)
REQUEST = LlmRequest(model="", messages=HISTORY, tools=TOOLS, max_tokens=50, temperature=0.2)


def _body(raw: bytes) -> dict[str, object]:
    body = json.loads(raw)
    assert isinstance(body, dict)
    return body


def test_openai_sends_tool_calls_and_one_tool_message_per_call() -> None:
    body = _body(OpenAiCodec(model="gpt-4o").encode(REQUEST, stream=False).body)
    assert body["model"] == "gpt-4o" and body["max_tokens"] == 50 and body["temperature"] == 0.2
    assert body["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Compare Paris and Rome"},
        {
            "role": "assistant",
            "content": "Checking both.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": "rain"},
    ]
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]


def test_openai_streaming_asks_for_usage_and_confidence_asks_for_logprobs() -> None:
    request = LlmRequest(model="m", messages=(UserMessage("hi"),), want_confidence=True)
    body = _body(OpenAiCodec(max_tokens_field="max_completion_tokens").encode(request, stream=True).body)
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["logprobs"] is True and "max_tokens" not in body


def test_openai_tool_only_assistant_turn_has_null_content() -> None:
    request = LlmRequest(model="m", messages=(AssistantMessage(tool_calls=(ToolCall("c", "f", {}),)),))
    message = _body(OpenAiCodec().encode(request, stream=False).body)["messages"]
    assert isinstance(message, list) and message[0]["content"] is None


def test_anthropic_puts_system_on_top_and_results_first_in_one_user_turn() -> None:
    wire = AnthropicCodec(model="claude", version="2024-10-22").encode(REQUEST, stream=False)
    body = _body(wire.body)
    assert dict(wire.headers) == {"anthropic-version": "2024-10-22"}
    assert body["system"] == "You are terse." and body["max_tokens"] == 50
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Compare Paris and Rome"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "get_weather", "input": {"city": "Rome"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "sunny"},
                {"type": "tool_result", "tool_use_id": "c2", "content": "rain", "is_error": True},
            ],
        },
    ]
    assert body["tools"] == [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ]


def test_anthropic_always_sends_max_tokens() -> None:
    body = _body(
        AnthropicCodec(default_max_tokens=123).encode(LlmRequest(model="m", messages=()), stream=False).body
    )
    assert body["max_tokens"] == 123


def test_anthropic_results_before_text_missing_results_filled_and_orphans_become_text() -> None:
    system, turns = build_turns(
        (
            UserMessage("go"),
            AssistantMessage(tool_calls=(ToolCall("a", "f", {}), ToolCall("b", "f", {}))),
            UserMessage("also this"),
            ToolResultMessage("zzz", "f", "stray"),
            ToolResultMessage("b", "f", "B"),
        )
    )
    assert system == ""
    content = turns[2]["content"]
    assert isinstance(content, list)
    assert [block["type"] for block in content] == ["tool_result", "tool_result", "text", "text"]
    assert [block.get("tool_use_id") for block in content[:2]] == ["a", "b"]
    assert content[0]["content"] == MISSING_RESULT and content[0]["is_error"] is True
    assert "stray" in content[3]["text"]


MESSAGES = st.one_of(
    st.builds(SystemMessage, st.text(max_size=5)),
    st.builds(UserMessage, st.text(max_size=5)),
    st.builds(
        AssistantMessage,
        st.text(max_size=5),
        st.lists(st.builds(ToolCall, st.sampled_from(["a", "b", "c"]), st.just("f")), max_size=3).map(tuple),
    ),
    st.builds(ToolResultMessage, st.sampled_from(["a", "b", "c", "d"]), st.just("f"), st.text(max_size=5)),
)


@given(st.lists(MESSAGES, max_size=12).map(tuple))
def test_anthropic_turns_always_alternate_and_pair_every_tool_use(history: tuple[Message, ...]) -> None:
    _, turns = build_turns(history)
    roles = [t["role"] for t in turns]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    for before, after in itertools.pairwise(turns):
        assert isinstance(before["content"], list) and isinstance(after["content"], list)
        uses = [b["id"] for b in before["content"] if b["type"] == "tool_use"]
        if before["role"] == "assistant":
            results = [b for b in after["content"] if b["type"] == "tool_result"]
            assert [b["tool_use_id"] for b in results] == uses
            assert [b["type"] for b in after["content"][: len(uses)]] == ["tool_result"] * len(uses)
    for turn in turns:
        assert isinstance(turn["content"], list) and turn["content"], "no empty turns"
        assert all(b.get("text") != "" for b in turn["content"]), "no empty text blocks"
    if turns and turns[0]["role"] == "user":
        first = turns[0]["content"]
        assert isinstance(first, list) and not any(b["type"] == "tool_result" for b in first)


def test_ollama_chat_sends_object_arguments_and_tool_names() -> None:
    body = _body(OllamaCodec(model="llama3.2").encode(REQUEST, stream=False).body)
    assert body["stream"] is False and body["options"] == {"temperature": 0.2, "num_predict": 50}
    messages = body["messages"]
    assert isinstance(messages, list)
    assert messages[2]["tool_calls"] == [
        {"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
        {"function": {"name": "get_weather", "arguments": {"city": "Rome"}}},
    ]
    assert messages[3] == {"role": "tool", "content": "sunny", "tool_name": "get_weather"}


def test_ollama_structured_output_goes_to_generate_with_the_schema_as_format() -> None:
    schema = {"type": "object", "properties": {"steps": {"type": "array"}}}
    request = LlmRequest(
        model="m", messages=(SystemMessage("Plan."), UserMessage("Trip")), response_schema=schema
    )
    wire = OllamaCodec().encode(request, stream=True)
    assert wire.path == "/api/generate"
    assert _body(wire.body) == {
        "model": "m",
        "prompt": "Trip",
        "system": "Plan.",
        "stream": True,
        "format": schema,
    }
    chat = OllamaCodec(generate_for_schema=False).encode(request, stream=False)
    assert chat.path == "/api/chat" and _body(chat.body)["format"] == schema


def test_ollama_generate_renders_a_multi_turn_history_into_the_prompt() -> None:
    request = LlmRequest(model="m", messages=HISTORY, response_schema={"type": "object"})
    prompt = _body(OllamaCodec().encode(request, stream=False).body)["prompt"]
    assert isinstance(prompt, str)
    assert "User: Compare Paris and Rome" in prompt and "Tool get_weather returned: sunny" in prompt


@requires_shared
def test_the_spec_check_rejects_what_the_real_api_would() -> None:
    from tests.providers.openapi import assert_matches_spec

    with pytest.raises(AssertionError, match="CreateChatCompletionRequest"):
        assert_matches_spec(
            "/v1/chat/completions", {"model": "m", "messages": [{"role": "tool", "content": "x"}]}
        )
    assert_matches_spec(
        "/v1/chat/completions", _body(OpenAiCodec(model="m").encode(REQUEST, stream=True).body)
    )
