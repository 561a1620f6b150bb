"""Recorded real streams (OpenAI and Anthropic, from ../shared) decode to the right values.

Each recording is served by an in-memory httpx transport and read through the
real provider (sync and async), so SSE framing, decoding and judgement are all
exercised on foreign bytes.
"""

from __future__ import annotations

import httpx
import pytest

from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmReply, LlmRequest, UserMessage
from agentsm_fn.providers import (
    HttpProvider,
    StreamCompleted,
    StreamEvent,
    TextDelta,
    ToolCallArguments,
    ToolCallStarted,
    anthropic_provider,
    openai_provider,
)
from tests.providers.conftest import recording, requires_shared, sse_response

pytestmark = requires_shared

REQUEST = LlmRequest(model="m", messages=(UserMessage("hi"),))
CONFIDENT = LlmRequest(model="m", messages=(UserMessage("hi"),), want_confidence=True)


def _provider(kind: str, body: bytes) -> HttpProvider:
    transport = httpx.MockTransport(lambda request: sse_response(body))
    make = openai_provider if kind == "openai-stream" else anthropic_provider
    return make(
        "m",
        api_key="k",
        base_url="http://peer.test",
        client=httpx.Client(transport=transport),
        async_client=httpx.AsyncClient(transport=transport),
        stream=True,
        env={},
    )


def _events(kind: str, name: str, request: LlmRequest = REQUEST) -> list[StreamEvent]:
    return list(_provider(kind, recording(kind, name)).stream(request))


def _outcome(events: list[StreamEvent]) -> LlmReply | LlmFailure:
    last = events[-1]
    assert isinstance(last, StreamCompleted)
    assert sum(isinstance(e, StreamCompleted) for e in events) == 1
    return last.outcome


OPENAI_TOOL_CALLS = {
    "2018feb66ae1.sse": [("call_4XzlGBLtUe9dy3GVNV4jhq7h", "get_weather", {"city": "New York City"})],
    "a247c49c5fcd.sse": [
        ("call_CTf1nWJLqSeRgDqaCG27xZ74", "get_weather", {"city": "San Francisco", "state": "CA"})
    ],
    "c6aa7e397b71.sse": [
        (
            "call_c91SqDXlYFuETYv8mUHzz6pp",
            "GetWeatherArgs",
            {"units": "c", "city": "Edinburgh", "country": "UK"},
        )
    ],
    "f82268f2fefd.sse": [
        (
            "call_JMW1whyEaYG438VE1OIflxA2",
            "GetWeatherArgs",
            {"units": "c", "city": "Edinburgh", "country": "GB"},
        ),
        ("call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    ],
}


@pytest.mark.parametrize("name", sorted(OPENAI_TOOL_CALLS))
def test_openai_tool_call_streams_reassemble_fragments_by_index(name: str) -> None:
    events = _events("openai-stream", name)
    outcome = _outcome(events)
    assert isinstance(outcome, LlmReply) and outcome.is_tool_call
    assert [(c.id, c.name, dict(c.arguments)) for c in outcome.tool_calls] == OPENAI_TOOL_CALLS[name]
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.index, e.id) for e in started] == [(i, c[0]) for i, c in enumerate(OPENAI_TOOL_CALLS[name])]
    for index, call in enumerate(outcome.tool_calls):
        fragments = "".join(
            e.fragment for e in events if isinstance(e, ToolCallArguments) and e.index == index
        )
        assert httpx.Response(200, content=fragments).json() == dict(call.arguments)


def test_openai_parallel_stream_reports_usage_from_the_empty_choices_chunk() -> None:
    outcome = _outcome(_events("openai-stream", "f82268f2fefd.sse"))
    assert isinstance(outcome, LlmReply)
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (149, 60)
    assert outcome.model == "gpt-4o-2024-08-06" and outcome.finish_reason == "tool_calls"


def test_openai_text_stream_yields_deltas_that_concatenate_to_the_answer() -> None:
    events = _events("openai-stream", "e2aad469b71d.sse")
    outcome = _outcome(events)
    assert isinstance(outcome, LlmReply) and not outcome.is_tool_call
    assert outcome.content.startswith("I'm unable to provide real-time weather updates.")
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == outcome.content
    assert outcome.usage.total_tokens == 44 and outcome.confidence == 1.0


def test_openai_structured_output_stream_is_the_json_text() -> None:
    outcome = _outcome(_events("openai-stream", "7e5ea4d12e7c.sse"))
    assert isinstance(outcome, LlmReply)
    assert httpx.Response(200, content=outcome.content).json() == {
        "city": "San Francisco",
        "temperature": 61,
        "units": "f",
    }


@pytest.mark.parametrize("name", ["173417d55340.sse", "569c877e6942.sse"])
def test_openai_refusal_streams_become_refusal_failures(name: str) -> None:
    outcome = _outcome(_events("openai-stream", name))
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.REFUSAL
    assert "sorry" in outcome.message


def test_openai_length_stream_becomes_truncated() -> None:
    outcome = _outcome(_events("openai-stream", "4cc50a6135d2.sse"))
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.TRUNCATED


def test_openai_logprobs_give_a_confidence_below_one_when_asked() -> None:
    asked = _outcome(_events("openai-stream", "83b060bae42e.sse", CONFIDENT))
    not_asked = _outcome(_events("openai-stream", "83b060bae42e.sse"))
    assert isinstance(asked, LlmReply) and isinstance(not_asked, LlmReply)
    assert asked.content == "Foo!"
    assert 0.8 < asked.confidence < 0.95
    assert not_asked.confidence == 1.0


ANTHROPIC_TEXT = {
    "basic_response.sse": ("Hello there!", 11, 6),
    "compaction_response.sse": ("Hello there!", 30, 8),
    "fallback_credit_response.sse": ("Hello there!", 25, 8),
    "fallback_response.sse": ("Hello there!", 25, 8),
}


@pytest.mark.parametrize("name", sorted(ANTHROPIC_TEXT))
def test_anthropic_text_streams_decode_text_and_usage(name: str) -> None:
    events = _events("anthropic-stream", name)
    outcome = _outcome(events)
    text, tokens_in, tokens_out = ANTHROPIC_TEXT[name]
    assert isinstance(outcome, LlmReply)
    assert (outcome.content, outcome.usage.input_tokens, outcome.usage.output_tokens) == (
        text,
        tokens_in,
        tokens_out,
    )
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == text


def test_anthropic_tool_use_stream_joins_partial_json_after_ping() -> None:
    events = _events("anthropic-stream", "tool_use_response.sse")
    outcome = _outcome(events)
    assert isinstance(outcome, LlmReply) and outcome.finish_reason == "tool_use"
    assert outcome.content == "I'll check the current weather in Paris for you."
    assert [(c.id, c.name, dict(c.arguments)) for c in outcome.tool_calls] == [
        ("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})
    ]
    assert ToolCallStarted(0, "toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather") in events
    assert outcome.usage.input_tokens == 377


def test_anthropic_refusal_stream_becomes_refusal_with_the_explanation() -> None:
    outcome = _outcome(_events("anthropic-stream", "refusal_response.sse"))
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.REFUSAL
    assert "refused due to policy" in outcome.message


def test_anthropic_incomplete_partial_json_at_max_tokens_is_truncated_not_an_exception() -> None:
    outcome = _outcome(_events("anthropic-stream", "incomplete_partial_json_response.sse"))
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.TRUNCATED


@pytest.mark.parametrize(
    ("kind", "name"), [("openai-stream", "f82268f2fefd.sse"), ("anthropic-stream", "tool_use_response.sse")]
)
async def test_async_stream_gives_the_same_events_as_sync(kind: str, name: str) -> None:
    provider = _provider(kind, recording(kind, name))
    events = [e async for e in provider.astream(REQUEST)]
    assert events == _events(kind, name)


@pytest.mark.parametrize("name", ["f82268f2fefd.sse", "e2aad469b71d.sse"])
def test_a_stream_cut_in_the_middle_is_a_connection_failure(name: str) -> None:
    body = recording("openai-stream", name)
    cut = body[: len(body) // 2].rsplit(b"\n\n", 1)[0] + b"\n\n"
    outcome = _outcome(list(_provider("openai-stream", cut).stream(REQUEST)))
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.CONNECTION
