"""Whole agent conversations through each provider against aimock, a foreign server on loopback.

Every request our client sent is validated against the official SDK types (and,
for Anthropic, the turn rules the real API enforces). aimock's journal stores
bodies normalised to its internal chat shape, so the exact bytes are captured
on the client side by an httpx request hook, and the journal is used to check
that the server received each of them. Retries are real round trips with an
injected sleep: nothing waits.
"""

from __future__ import annotations

import json

import pytest

from agentsm_fn import Shell, Snapshot, StepClock, arun, run
from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmReply, LlmRequest, UserMessage
from agentsm_fn.providers import HttpProvider, StreamCompleted, StreamEvent, TextDelta, ToolCallStarted
from tests.providers.agent import MACHINE, E, Mem, S, memory, tool_performers
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import KEY, PROVIDERS, WIRE, make, requests_sent, validate_journal


def run_agent(provider: HttpProvider, question: str) -> Snapshot[S, Mem]:
    shell = Shell(provider.performers().merge(tool_performers()), StepClock())
    with provider:
        return run(MACHINE, memory(question), shell).unwrap()


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", PROVIDERS)
def test_single_tool_call_conversation(kind: str, stream: bool, aimock: Aimock) -> None:
    snapshot = run_agent(make(kind, aimock, Sleeps(), stream=stream), "What is the weather in Paris?")
    assert snapshot.state is S.DONE, snapshot.memory.error
    assert snapshot.memory.answer == "It is sunny in Paris."
    assert snapshot.memory.llm_calls == 2
    sent = validate_journal(aimock)
    assert len(sent) == 2
    second = json.dumps(sent[1][1])
    assert "sunny" in second and "get_weather" in second
    if kind != "ollama":  # Ollama's wire format pairs results by tool name, not id
        assert "call_weather_1" in second


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_parallel_tool_calls_conversation_async(kind: str, aimock: Aimock) -> None:
    async with WIRE.async_client() as client:
        provider = make(kind, aimock, Sleeps(), async_client=client)
        shell = Shell(provider.performers().merge(tool_performers()), StepClock())
        snapshot = (await arun(MACHINE, memory("Please compare Paris and Rome"), shell)).unwrap()
    assert snapshot.state is S.DONE and snapshot.memory.answer == "Paris is sunny and Rome is rainy."
    sent = validate_journal(aimock)
    assert len(sent) == 2
    second = sent[1][1]
    text = json.dumps(second)
    assert "sunny" in text and "rainy" in text
    messages = second["messages"]
    assert isinstance(messages, list)
    if kind == "openai":
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool"]
    if kind == "anthropic":
        last = messages[-1]
        assert [b["tool_use_id"] for b in last["content"]] == ["call_par_1", "call_par_2"]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("kind", PROVIDERS)
def test_three_sequential_tool_calls(kind: str, stream: bool, aimock: Aimock) -> None:
    snapshot = run_agent(make(kind, aimock, Sleeps(), stream=stream), "Do three lookups please")
    assert snapshot.state is S.DONE and snapshot.memory.answer == "Looked up a, b and c."
    assert snapshot.memory.llm_calls == 4
    assert len(validate_journal(aimock)) == 4


@pytest.mark.parametrize(
    ("trigger", "sleeps_expected"),
    [("flaky 429", [1.0]), ("flaky 500", [0.5]), ("flaky 529", [0.5]), ("flaky drop", [0.5])],
)
@pytest.mark.parametrize("kind", PROVIDERS)
def test_transient_failures_are_retried_to_success(
    kind: str, trigger: str, sleeps_expected: list[float], aimock: Aimock
) -> None:
    sleeps = Sleeps()
    snapshot = run_agent(make(kind, aimock, sleeps), trigger)
    assert snapshot.state is S.DONE, snapshot.memory.error
    assert snapshot.memory.answer == f"recovered after {trigger.split()[1]}"
    assert sleeps.delays == sleeps_expected
    assert len(requests_sent(aimock)) == 2


@pytest.mark.parametrize("kind", PROVIDERS)
async def test_one_shot_529_in_the_middle_of_a_streamed_conversation(kind: str, aimock: Aimock) -> None:
    sleeps = Sleeps()
    async with WIRE.async_client() as client:
        provider = make(kind, aimock, sleeps, stream=True, async_client=client)
        first = await provider.acomplete(LlmRequest(model="", messages=(UserMessage("weather in Paris"),)))
        aimock.error_next(529, {"message": "Overloaded", "type": "overloaded_error"})
        assert isinstance(first, LlmReply) and first.is_tool_call
        shell = Shell(provider.performers().merge(tool_performers()), StepClock())
        snapshot = (await arun(MACHINE, memory("What is the weather in Paris?"), shell)).unwrap()
    assert snapshot.state is S.DONE and sleeps.delays == [0.5]


@pytest.mark.parametrize("kind", PROVIDERS)
def test_persistent_503_ends_the_agent_in_failed_with_a_typed_reason(kind: str, aimock: Aimock) -> None:
    sleeps = Sleeps()
    snapshot = run_agent(make(kind, aimock, sleeps), "always 503")
    assert snapshot.state is S.FAILED
    assert snapshot.memory.error.startswith("http_status (503): ")
    assert snapshot.memory.error.endswith("Service unavailable")
    assert sleeps.delays == [0.5, 1.0] and len(requests_sent(aimock)) == 3
    assert snapshot.trace.entries[-1].event == E.LLM_FAILED.name


@pytest.mark.parametrize("kind", PROVIDERS)
def test_400_is_not_retried(kind: str, aimock: Aimock) -> None:
    sleeps = Sleeps()
    outcome = make(kind, aimock, sleeps).complete(
        LlmRequest(model="", messages=(UserMessage("bad request"),))
    )
    assert isinstance(outcome, LlmFailure) and outcome.status == 400 and outcome.attempts == 1
    assert "Invalid value for messages" in outcome.message and sleeps.delays == []


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_length_finish_is_truncated(kind: str, aimock: Aimock) -> None:
    outcome = make(kind, aimock, Sleeps()).complete(
        LlmRequest(model="", messages=(UserMessage("cut short"),))
    )
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.TRUNCATED


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_ollama_structured_output_through_generate(stream: bool, aimock: Aimock) -> None:
    schema = {"type": "object", "properties": {"steps": {"type": "array", "items": {"type": "string"}}}}
    request = LlmRequest(model="", messages=(UserMessage("plan a trip to Mars"),), response_schema=schema)
    outcome = make("ollama", aimock, Sleeps(), stream=stream).complete(request)
    assert isinstance(outcome, LlmReply)
    assert json.loads(outcome.content) == {"steps": ["book flight", "pack"]}
    ((path, body),) = validate_journal(aimock)
    assert path == "/api/generate" and body["format"] == schema


@pytest.mark.parametrize("kind", PROVIDERS)
def test_streaming_events_arrive_in_order_and_end_with_completed(kind: str, aimock: Aimock) -> None:
    seen: list[StreamEvent] = []
    provider = make(kind, aimock, Sleeps(), stream=True, on_event=seen.append)
    with provider:
        text = provider.complete(LlmRequest(model="", messages=(UserMessage("hello there"),)))
        tools = list(provider.stream(LlmRequest(model="", messages=(UserMessage("weather in Paris"),))))
    assert isinstance(text, LlmReply) and text.content == "I am the catch-all."
    assert "".join(e.text for e in seen if isinstance(e, TextDelta)) == text.content
    assert isinstance(tools[-1], StreamCompleted) and isinstance(tools[-1].outcome, LlmReply)
    started = [e for e in tools if isinstance(e, ToolCallStarted)]
    assert [e.name for e in started] == ["get_weather"]


def test_the_key_is_sent_in_the_provider_header(aimock: Aimock) -> None:
    for kind in PROVIDERS[:2]:
        make(kind, aimock, Sleeps()).complete(LlmRequest(model="", messages=(UserMessage("hi"),)))
    headers = WIRE.headers
    assert headers[0]["authorization"] == f"Bearer {KEY}" and "x-api-key" not in headers[0]
    assert headers[1]["x-api-key"] == KEY and "authorization" not in headers[1]
    assert headers[1]["anthropic-version"] == "2023-06-01"
    assert all(h["content-type"] == "application/json" for h in headers)
