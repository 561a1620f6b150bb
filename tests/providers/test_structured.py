"""Structured output per codec: the native field or the final-result tool, and the reply either way."""

from __future__ import annotations

import json

import pytest

from agentsm_fn.llm import RESULT_TOOL, LlmReply, LlmRequest, ToolSpec, UserMessage
from agentsm_fn.providers import AnthropicCodec, OllamaCodec, OpenAiCodec, TextDelta, ToolCallStarted
from agentsm_fn.providers.codec import Draft, assemble

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
TOOL = ToolSpec("lookup", "Look it up", {"type": "object"})


def request(*tools: ToolSpec) -> LlmRequest:
    return LlmRequest(
        model="m",
        messages=(UserMessage("Count"),),
        tools=tools,
        response_schema=SCHEMA,
        response_name="Count",
        response_description="How many.",
    )


def body(wire: bytes) -> dict[str, object]:
    found = json.loads(wire)
    assert isinstance(found, dict)
    return found


def tool_names(sent: dict[str, object]) -> list[str]:
    tools = sent.get("tools")
    assert isinstance(tools, list)
    return [t.get("name") or t["function"]["name"] for t in tools]


def test_openai_asks_with_response_format_by_default_and_a_required_tool_when_told() -> None:
    native = body(OpenAiCodec().encode(request(TOOL), stream=False).body)
    assert native["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "Count", "description": "How many.", "schema": SCHEMA},
    }
    tool = body(OpenAiCodec(structured="tool").encode(request(TOOL), stream=False).body)
    assert "response_format" not in tool and tool["tool_choice"] == "required"
    assert tool_names(tool) == ["lookup", RESULT_TOOL]


@pytest.mark.parametrize(
    ("tools", "choice"), [((), {"type": "tool", "name": RESULT_TOOL}), ((TOOL,), {"type": "any"})]
)
def test_anthropic_asks_with_a_final_result_tool_it_must_call(
    tools: tuple[ToolSpec, ...], choice: dict[str, str]
) -> None:
    sent = body(AnthropicCodec().encode(request(*tools), stream=False).body)
    assert sent["tool_choice"] == choice and "output_config" not in sent
    assert tool_names(sent)[-1] == RESULT_TOOL
    native = body(AnthropicCodec(structured="native").encode(request(), stream=False).body)
    assert native["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}


def test_ollama_asks_with_format_or_offers_the_tool_on_chat() -> None:
    native = OllamaCodec().encode(request(), stream=False)
    assert native.path == "/api/generate" and body(native.body)["format"] == SCHEMA
    tool = OllamaCodec(structured="tool").encode(request(), stream=False)
    assert tool.path == "/api/chat" and "format" not in body(tool.body)
    assert tool_names(body(tool.body)) == [RESULT_TOOL]


def test_a_final_result_call_is_the_replys_text_and_other_calls_of_it_are_dropped() -> None:
    draft = Draft(calls=(("c1", "lookup", "{}"), ("c2", RESULT_TOOL, {"n": 3})), finish_reason="tool_use")
    outcome = assemble("anthropic", request(TOOL), draft)
    assert isinstance(outcome, LlmReply) and outcome.content == '{"n":3}' and outcome.tool_calls == ()
    broken = assemble("openai", request(), Draft(calls=(("c1", RESULT_TOOL, '{"n": '),)))
    assert isinstance(broken, LlmReply) and broken.content == '{"n": '  # the agent judges it
    plain = assemble("openai", LlmRequest(model="m", messages=()), Draft(calls=(("c1", RESULT_TOOL, "{}"),)))
    assert isinstance(plain, LlmReply) and plain.tool_calls[0].name == RESULT_TOOL  # nothing was asked


def test_the_final_result_calls_streamed_arguments_arrive_as_text() -> None:
    decoder = AnthropicCodec().stream_decoder(request())
    events = [
        *decoder.feed(
            "content_block_start",
            '{"index":0,"content_block":{"type":"tool_use","id":"c1","name":"final_result","input":{}}}',
        ),
        *decoder.feed(
            "content_block_delta",
            '{"index":0,"delta":{"type":"input_json_delta","partial_json":"{\\"n\\": "}}',
        ),
        *decoder.feed(
            "content_block_delta", '{"index":0,"delta":{"type":"input_json_delta","partial_json":"3}"}}'
        ),
        *decoder.feed("message_delta", '{"delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":3}}'),
        *decoder.feed("message_stop", "{}"),
    ]
    assert events == [TextDelta('{"n": '), TextDelta("3}")]
    assert not any(isinstance(e, ToolCallStarted) for e in events)
    final = decoder.finish()
    assert isinstance(final, LlmReply) and final.content == '{"n": 3}'
