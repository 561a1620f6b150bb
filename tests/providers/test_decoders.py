"""Replies to values: tool calls by presence, usage, confidence, and every bad shape as a typed failure."""

from __future__ import annotations

import json
import math

import pytest

from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmReply, LlmRequest, UserMessage
from agentsm_fn.providers import AnthropicCodec, OllamaCodec, OpenAiCodec

REQUEST = LlmRequest(model="m", messages=(UserMessage("hi"),))
SCHEMA_REQUEST = LlmRequest(model="m", messages=(UserMessage("hi"),), response_schema={"type": "object"})


def _openai(message: dict[str, object], finish: str = "stop", **extra: object) -> bytes:
    choice: dict[str, object] = {"index": 0, "message": message, "finish_reason": finish, **extra}
    return json.dumps(
        {"model": "gpt", "choices": [choice], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}
    ).encode()


def _kind(outcome: LlmReply | LlmFailure) -> LlmFailureKind | None:
    return outcome.kind if isinstance(outcome, LlmFailure) else None


def test_openai_tool_calls_win_even_when_finish_reason_says_stop() -> None:
    body = _openai(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}
            ],
        },
        finish="stop",
    )
    outcome = OpenAiCodec().decode(REQUEST, body)
    assert isinstance(outcome, LlmReply) and outcome.is_tool_call
    assert outcome.tool_calls[0].arguments == {"x": 1} and outcome.usage.total_tokens == 7


@pytest.mark.parametrize("arguments", ['{"x": ', "[1, 2]", '"text"', "null"])
def test_openai_invalid_tool_arguments_are_a_typed_failure(arguments: str) -> None:
    body = _openai(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
            ],
        }
    )
    assert _kind(OpenAiCodec().decode(REQUEST, body)) is LlmFailureKind.INVALID_TOOL_ARGUMENTS


def test_openai_empty_argument_string_means_no_arguments() -> None:
    body = _openai(
        {"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "now", "arguments": ""}}]}
    )
    outcome = OpenAiCodec().decode(REQUEST, body)
    assert isinstance(outcome, LlmReply) and dict(outcome.tool_calls[0].arguments) == {}


@pytest.mark.parametrize(
    ("message", "finish", "kind"),
    [
        (
            {"role": "assistant", "content": None, "refusal": "I can't help with that."},
            "stop",
            LlmFailureKind.REFUSAL,
        ),
        ({"role": "assistant", "content": ""}, "content_filter", LlmFailureKind.REFUSAL),
        ({"role": "assistant", "content": "The answer is"}, "length", LlmFailureKind.TRUNCATED),
    ],
)
def test_openai_refusal_and_truncation(message: dict[str, object], finish: str, kind: LlmFailureKind) -> None:
    assert _kind(OpenAiCodec().decode(REQUEST, _openai(message, finish))) is kind


@pytest.mark.parametrize(
    "body", [b"", b"[]", b'{"choices": []}', b'{"choices": [{"message": 3}]}', b"\xff\xfe"]
)
def test_openai_unknown_shapes_are_malformed(body: bytes) -> None:
    assert _kind(OpenAiCodec().decode(REQUEST, body)) is LlmFailureKind.MALFORMED_REPLY


def test_openai_logprobs_confidence_is_the_geometric_mean_probability() -> None:
    asked = LlmRequest(model="m", messages=(UserMessage("hi"),), want_confidence=True)
    logprobs = {
        "content": [{"token": "a", "logprob": math.log(0.25)}, {"token": "b", "logprob": math.log(1.0)}]
    }
    outcome = OpenAiCodec().decode(asked, _openai({"role": "assistant", "content": "ab"}, logprobs=logprobs))
    assert isinstance(outcome, LlmReply) and outcome.confidence == pytest.approx(0.5)


def test_structured_output_that_is_not_json_is_a_reply_for_the_asker_to_judge() -> None:
    # An agent with a typed result sends the problems back to the model (docs/results.md); a
    # MALFORMED_REPLY failure here would end its run instead.
    bad = OpenAiCodec().decode(SCHEMA_REQUEST, _openai({"role": "assistant", "content": "Sure! {"}))
    good = OpenAiCodec().decode(SCHEMA_REQUEST, _openai({"role": "assistant", "content": '{"a": 1}'}))
    assert isinstance(bad, LlmReply) and bad.content == "Sure! {" and isinstance(good, LlmReply)


def test_openai_error_object_inside_a_200_is_a_stream_error() -> None:
    outcome = OpenAiCodec().decode(REQUEST, b'{"error": {"message": "upstream failed"}}')
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.STREAM_ERROR
    assert outcome.message == "upstream failed"


def test_openai_stream_error_after_200_ends_the_stream_with_its_message() -> None:
    decoder = OpenAiCodec().stream_decoder(REQUEST)
    decoder.feed("", '{"choices":[{"index":0,"delta":{"content":"Hel"}}]}')
    decoder.feed("", '{"error":{"message":"The server had an error","type":"server_error"}}')
    outcome = decoder.finish()
    assert decoder.done and isinstance(outcome, LlmFailure)
    assert (outcome.kind, outcome.message) == (LlmFailureKind.STREAM_ERROR, "The server had an error")


def _anthropic(content: list[object], stop: str = "end_turn") -> bytes:
    return json.dumps(
        {
            "type": "message",
            "model": "claude",
            "content": content,
            "stop_reason": stop,
            "usage": {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 10},
        }
    ).encode()


def test_anthropic_tool_use_blocks_and_text() -> None:
    outcome = AnthropicCodec().decode(
        REQUEST,
        _anthropic(
            [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "t1", "name": "f", "input": {"q": "a"}},
                {"type": "tool_use", "id": "t2", "name": "g", "input": {}},
            ],
            "tool_use",
        ),
    )
    assert isinstance(outcome, LlmReply)
    assert outcome.content == "Let me check." and [c.id for c in outcome.tool_calls] == ["t1", "t2"]
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (15, 2)


@pytest.mark.parametrize(
    ("content", "stop", "kind"),
    [
        ([{"type": "text", "text": "The"}], "max_tokens", LlmFailureKind.TRUNCATED),
        ([], "model_context_window_exceeded", LlmFailureKind.TRUNCATED),
        ([], "refusal", LlmFailureKind.REFUSAL),
        (
            [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}],
            "tool_use",
            LlmFailureKind.INVALID_TOOL_ARGUMENTS,
        ),
        ([{"type": "tool_use", "id": "t", "input": {}}], "tool_use", LlmFailureKind.MALFORMED_REPLY),
    ],
)
def test_anthropic_failures(content: list[object], stop: str, kind: LlmFailureKind) -> None:
    assert _kind(AnthropicCodec().decode(REQUEST, _anthropic(content, stop))) is kind


def test_anthropic_error_event_after_200_is_a_stream_error() -> None:
    decoder = AnthropicCodec().stream_decoder(REQUEST)
    decoder.feed(
        "message_start", '{"type":"message_start","message":{"model":"c","usage":{"input_tokens":1}}}'
    )
    decoder.feed("ping", '{"type": "ping"}')
    decoder.feed("error", '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')
    outcome = decoder.finish()
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.STREAM_ERROR
    assert outcome.message == "overloaded_error: Overloaded"


def _ollama(message: dict[str, object], reason: str = "stop") -> bytes:
    return json.dumps(
        {
            "model": "llama",
            "message": message,
            "done": True,
            "done_reason": reason,
            "prompt_eval_count": 9,
            "eval_count": 4,
        }
    ).encode()


def test_ollama_tool_calls_with_and_without_ids_and_string_arguments() -> None:
    outcome = OllamaCodec().decode(
        REQUEST,
        _ollama(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "call_x", "function": {"index": 0, "name": "f", "arguments": {"a": 1}}},
                    {"function": {"name": "g", "arguments": '{"b": 2}'}},
                ],
            }
        ),
    )
    assert isinstance(outcome, LlmReply)
    assert [(c.id, c.name, dict(c.arguments)) for c in outcome.tool_calls] == [
        ("call_x", "f", {"a": 1}),
        ("ollama_call_1", "g", {"b": 2}),
    ]
    assert outcome.usage.total_tokens == 13


@pytest.mark.parametrize(
    "body", [b'{"error": "model \\"x\\" not found, try pulling it first"}', b'{"error": {"message": "nope"}}']
)
def test_ollama_both_error_shapes_are_read(body: bytes) -> None:
    outcome = OllamaCodec().decode(REQUEST, body)
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.STREAM_ERROR
    assert outcome.message in ('model "x" not found, try pulling it first', "nope")
    assert OllamaCodec().error_message(body) == outcome.message


def test_ollama_length_is_truncated_and_not_done_is_malformed() -> None:
    assert (
        _kind(OllamaCodec().decode(REQUEST, _ollama({"content": "x"}, "length"))) is LlmFailureKind.TRUNCATED
    )
    assert _kind(OllamaCodec().decode(REQUEST, b'{"message": {"content": "x"}, "done": false}')) is (
        LlmFailureKind.MALFORMED_REPLY
    )


def test_ollama_ndjson_error_line_after_200_is_a_stream_error() -> None:
    decoder = OllamaCodec().stream_decoder(REQUEST)
    decoder.feed("", '{"message": {"role": "assistant", "content": "Hi"}, "done": false}')
    decoder.feed("", '{"error": "an error was encountered while running the model"}')
    outcome = decoder.finish()
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.STREAM_ERROR


def test_ollama_generate_reply_and_logprob_confidence() -> None:
    asked = LlmRequest(
        model="m", messages=(UserMessage("plan"),), response_schema={"type": "object"}, want_confidence=True
    )
    body = json.dumps(
        {
            "response": '{"steps": []}',
            "done": True,
            "done_reason": "stop",
            "logprobs": [{"token": "{", "logprob": math.log(0.5)}],
        }
    ).encode()
    outcome = OllamaCodec().decode(asked, body)
    assert isinstance(outcome, LlmReply) and outcome.content == '{"steps": []}'
    assert outcome.confidence == pytest.approx(0.5)


def test_openai_content_as_a_list_of_text_parts_is_joined() -> None:
    body = _openai(
        {"role": "assistant", "content": [{"type": "text", "text": "Hel"}, {"type": "text", "text": "lo"}]}
    )
    outcome = OpenAiCodec().decode(REQUEST, body)
    assert isinstance(outcome, LlmReply) and outcome.content == "Hello"


def test_anthropic_stream_tool_input_given_whole_at_block_start_is_kept() -> None:
    decoder = AnthropicCodec().stream_decoder(REQUEST)
    start = {"index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {"q": "x"}}}
    decoder.feed("content_block_start", json.dumps(start))
    decoder.feed("content_block_stop", '{"index": 0}')
    decoder.feed("message_delta", '{"delta": {"stop_reason": "tool_use"}}')
    decoder.feed("message_stop", "{}")
    outcome = decoder.finish()
    assert isinstance(outcome, LlmReply) and dict(outcome.tool_calls[0].arguments) == {"q": "x"}
