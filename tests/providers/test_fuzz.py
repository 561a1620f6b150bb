"""Hypothesis: no input makes a decoder raise, whether arbitrary JSON, bytes or mutated real replies."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.llm import LlmFailure, LlmReply, LlmRequest, UserMessage
from agentsm_fn.providers import AnthropicCodec, Codec, OllamaCodec, OpenAiCodec
from tests.providers.conftest import RECORDINGS

CODECS: tuple[Codec, ...] = (OpenAiCodec(), AnthropicCodec(), OllamaCodec())
REQUESTS = st.sampled_from(
    [
        LlmRequest(model="m", messages=(UserMessage("hi"),)),
        LlmRequest(model="m", messages=(UserMessage("hi"),), want_confidence=True),
        LlmRequest(model="m", messages=(UserMessage("hi"),), response_schema={"type": "object"}),
    ]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=25,
)
KEYS = [
    "choices",
    "message",
    "delta",
    "tool_calls",
    "function",
    "arguments",
    "content",
    "type",
    "index",
    "usage",
    "error",
    "done",
    "done_reason",
    "stop_reason",
    "content_block",
    "input",
    "partial_json",
    "logprobs",
    "id",
    "name",
    "text",
    "response",
    "refusal",
    "finish_reason",
    "prompt_tokens",
    "eval_count",
    "logprob",
]
SHAPED = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(KEYS), children, max_size=5)
    ),
    max_leaves=30,
)
EVENTS = st.sampled_from(
    [
        "",
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    ]
)


def _total(outcome: object) -> None:
    assert isinstance(outcome, LlmReply | LlmFailure)


@settings(max_examples=200)
@given(st.sampled_from(CODECS), REQUESTS, JSON | SHAPED)
def test_decode_never_raises_on_arbitrary_json(codec: Codec, request: LlmRequest, value: object) -> None:
    body = json.dumps(value).encode()
    _total(codec.decode(request, body))
    assert isinstance(codec.error_message(body), str)


@given(st.sampled_from(CODECS), REQUESTS, st.binary(max_size=64))
def test_decode_never_raises_on_arbitrary_bytes(codec: Codec, request: LlmRequest, body: bytes) -> None:
    _total(codec.decode(request, body))
    assert isinstance(codec.error_message(body), str)


@settings(max_examples=200)
@given(
    st.sampled_from(CODECS),
    REQUESTS,
    st.lists(st.tuples(EVENTS, JSON | SHAPED | st.text(max_size=10)), max_size=8),
)
def test_stream_decoders_never_raise(
    codec: Codec, request: LlmRequest, frames: list[tuple[str, object]]
) -> None:
    decoder = codec.stream_decoder(request)
    for event, value in frames:
        data = value if isinstance(value, str) else json.dumps(value)
        events = decoder.feed(event, data)
        assert isinstance(events, tuple)
    _total(decoder.finish())


def _recorded_frames() -> list[tuple[str, list[tuple[str, str]]]]:
    frames: list[tuple[str, list[tuple[str, str]]]] = []
    if not RECORDINGS.is_dir():
        return frames
    for path in sorted(RECORDINGS.glob("*/*.sse")):
        kind = path.parent.name
        events: list[tuple[str, str]] = []
        event = ""
        for line in path.read_text().splitlines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                events.append((event, line[5:].strip()))
                event = ""
        frames.append((kind, events))
    return frames


RECORDED = _recorded_frames()


def _mutate(data: str, draw: st.DrawFn) -> str:
    try:
        value = json.loads(data)
    except ValueError:  # already cut by an earlier mutation
        return data[: draw(st.integers(0, len(data)))]
    if not isinstance(value, dict) or not value:
        return data
    key = draw(st.sampled_from(sorted(value)))
    choice = draw(st.integers(0, 3))
    if choice == 0:
        del value[key]
    elif choice == 1:
        value[key] = draw(JSON)
    elif choice == 2:
        return data[: draw(st.integers(0, len(data)))]
    else:
        value[draw(st.sampled_from(KEYS))] = draw(SHAPED)
    return json.dumps(value)


@st.composite
def mutated_recordings(draw: st.DrawFn) -> tuple[str, list[tuple[str, str]]]:
    kind, events = draw(st.sampled_from(RECORDED)) if RECORDED else ("openai-stream", [("", "{}")])
    out = list(events)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(out) - 1))
        out[i] = (out[i][0], _mutate(out[i][1], draw))
    return kind, out


@settings(max_examples=200)
@given(mutated_recordings(), REQUESTS)
def test_mutated_real_streams_never_raise(
    recorded: tuple[str, list[tuple[str, str]]], request: LlmRequest
) -> None:
    kind, events = recorded
    decoder = (OpenAiCodec() if kind == "openai-stream" else AnthropicCodec()).stream_decoder(request)
    for event, data in events:
        decoder.feed(event, data)
    _total(decoder.finish())


@settings(max_examples=200)
@given(mutated_recordings(), REQUESTS, st.sampled_from(CODECS))
def test_mutated_real_chunks_as_whole_bodies_never_raise(
    recorded: tuple[str, list[tuple[str, str]]], request: LlmRequest, codec: Codec
) -> None:
    for _, data in recorded[1]:
        _total(codec.decode(request, data.encode()))


def test_deeply_nested_arguments_are_a_failure_not_a_recursion_error() -> None:
    deep = "[" * 5000 + "]" * 5000
    body = json.dumps(
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "tool_calls": [
                            {"id": "c", "function": {"name": "f", "arguments": '{"a": ' + deep + "}"}}
                        ]
                    },
                }
            ]
        }
    )
    _total(OpenAiCodec().decode(LlmRequest(model="m", messages=()), body.encode()))
