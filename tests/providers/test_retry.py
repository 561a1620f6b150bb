"""Retries like the official SDKs with injected sleep: which answers retry, how long to wait, when to stop."""

from __future__ import annotations

import email.utils
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm import LlmFailure, LlmFailureKind, LlmReply, LlmRequest, UserMessage
from agentsm_fn.providers import (
    HttpProvider,
    RetryPolicy,
    RetryScheduled,
    StreamCompleted,
    anthropic_provider,
    ollama_provider,
    openai_provider,
)
from tests.providers.conftest import Sleeps, instant_transport, json_response

REQUEST = LlmRequest(model="m", messages=(UserMessage("hi"),))
OK = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
NOW = 1_700_000_000.0


def test_policy_retries_exactly_the_sdk_statuses() -> None:
    policy = RetryPolicy()
    retried = [s for s in range(400, 600) if policy.should_retry(s, {})]
    assert retried == [408, 409, 429, *range(500, 600)]
    assert policy.should_retry(None, {})  # connection error or timeout


def test_policy_obeys_x_should_retry_both_ways() -> None:
    policy = RetryPolicy()
    assert policy.should_retry(400, {"x-should-retry": "true"})
    assert not policy.should_retry(503, {"x-should-retry": "false"})


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": email.utils.formatdate(NOW + 5, usegmt=True)}, 5.0),
    ],
)
def test_policy_honours_retry_after_headers(headers: dict[str, str], expected: float) -> None:
    assert RetryPolicy().delay(0, status=429, headers=headers, now=NOW, draw=0.0) == pytest.approx(expected)


@pytest.mark.parametrize("value", ["0", "-1", "600", "soon", "nan"])
def test_policy_falls_back_to_backoff_for_absent_or_capped_retry_after(value: str) -> None:
    assert (
        RetryPolicy(max_retry_after=60).delay(
            0, status=429, headers={"retry-after": value}, now=NOW, draw=1.0
        )
        == 0.5
    )


@given(st.integers(0, 20), st.floats(0, 1))
def test_backoff_is_exponential_capped_and_jittered(retries: int, draw: float) -> None:
    policy = RetryPolicy(max_retries=100)
    delay = policy.delay(retries, status=500, headers={}, now=NOW, draw=draw)
    base = min(0.5 * 2**retries, 8.0)
    assert delay is not None and 0.75 * base - 1e-9 <= delay <= base + 1e-9


@given(st.integers(0, 5), st.integers(0, 5))
def test_attempts_are_bounded(max_retries: int, retries_done: int) -> None:
    delay = RetryPolicy(max_retries=max_retries).delay(
        retries_done, status=500, headers={}, now=NOW, draw=0.5
    )
    assert (delay is None) == (retries_done >= max_retries)


# ---- through the transport, with a scripted server ----


class Script:
    """Answers requests from a list of responses or exceptions, counting calls."""

    def __init__(self, *answers: httpx.Response | Exception) -> None:
        self.answers: Iterator[httpx.Response | Exception] = iter(answers)
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        answer = next(self.answers)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _provider(script: Script, sleeps: Sleeps, *, stream: bool = False, max_retries: int = 2) -> HttpProvider:
    transport = httpx.MockTransport(script)
    return openai_provider(
        "m",
        api_key="sk-test",
        base_url="http://peer.test/v1",
        client=httpx.Client(transport=transport),
        async_client=httpx.AsyncClient(transport=transport),
        transport=instant_transport(sleeps, max_retries=max_retries),
        stream=stream,
        env={},
    )


def _error(status: int, headers: dict[str, str] | None = None) -> httpx.Response:
    return json_response({"error": {"message": f"status {status}", "type": "x"}}, status, headers)


def test_429_with_retry_after_then_success_sleeps_what_the_server_asked() -> None:
    sleeps, script = Sleeps(), Script(_error(429, {"retry-after": "2"}), json_response(OK))
    outcome = _provider(script, sleeps).complete(REQUEST)
    assert isinstance(outcome, LlmReply) and outcome.content == "ok"
    assert sleeps.delays == [2.0] and script.calls == 2


@pytest.mark.parametrize("status", [408, 409, 500, 502, 503, 529])
def test_retryable_statuses_back_off_exponentially_then_fail_with_status_and_message(status: int) -> None:
    sleeps, script = Sleeps(), Script(_error(status), _error(status), _error(status))
    outcome = _provider(script, sleeps).complete(REQUEST)
    assert isinstance(outcome, LlmFailure)
    assert (outcome.kind, outcome.status, outcome.message, outcome.attempts) == (
        LlmFailureKind.HTTP_STATUS,
        status,
        f"status {status}",
        3,
    )
    assert sleeps.delays == [0.5, 1.0] and script.calls == 3


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
def test_other_statuses_fail_at_once(status: int) -> None:
    sleeps, script = Sleeps(), Script(_error(status))
    outcome = _provider(script, sleeps).complete(REQUEST)
    assert isinstance(outcome, LlmFailure) and outcome.status == status and outcome.attempts == 1
    assert sleeps.delays == []


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (httpx.ConnectError("refused"), LlmFailureKind.CONNECTION),
        (httpx.RemoteProtocolError("Server disconnected"), LlmFailureKind.CONNECTION),
        (httpx.ReadTimeout("timed out"), LlmFailureKind.TIMEOUT),
        (httpx.ConnectTimeout("timed out"), LlmFailureKind.TIMEOUT),
    ],
)
def test_connection_errors_and_timeouts_are_retried_then_typed(exc: Exception, kind: LlmFailureKind) -> None:
    sleeps = Sleeps()
    recovered = _provider(Script(exc, json_response(OK)), sleeps).complete(REQUEST)
    assert isinstance(recovered, LlmReply) and sleeps.delays == [0.5]
    failed = _provider(Script(exc, exc, exc), Sleeps()).complete(REQUEST)
    assert isinstance(failed, LlmFailure) and failed.kind is kind and failed.attempts == 3


async def test_async_send_retries_with_the_injected_async_sleep() -> None:
    sleeps, script = Sleeps(), Script(_error(529), httpx.ConnectError("x"), json_response(OK))
    outcome = await _provider(script, sleeps).acomplete(REQUEST)
    assert isinstance(outcome, LlmReply) and sleeps.delays == [0.5, 1.0]


def _sse(*chunks: str) -> httpx.Response:
    body = "".join(f"data: {c}\n\n" for c in chunks).encode()
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)


STREAM_OK = ('{"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}', "[DONE]")


def test_stream_reports_retries_as_events_then_completes() -> None:
    sleeps = Sleeps()
    events = list(
        _provider(Script(_error(503, {"retry-after-ms": "10"}), _sse(*STREAM_OK)), sleeps).stream(REQUEST)
    )
    assert events[0] == RetryScheduled(attempt=1, delay=0.01, reason="http_status (503): status 503")
    assert isinstance(events[-1], StreamCompleted) and isinstance(events[-1].outcome, LlmReply)
    assert sleeps.delays == [0.01]


async def test_async_stream_retries_and_gives_up_after_the_bound() -> None:
    sleeps = Sleeps()
    provider = _provider(Script(_error(500), _error(500)), sleeps, stream=True, max_retries=1)
    events = [e async for e in provider.astream(REQUEST)]
    assert [type(e) for e in events] == [RetryScheduled, StreamCompleted]
    last = events[-1]
    assert (
        isinstance(last, StreamCompleted)
        and isinstance(last.outcome, LlmFailure)
        and last.outcome.attempts == 2
    )


def test_an_error_after_the_200_is_not_retried() -> None:
    sleeps, script = Sleeps(), Script(_sse('{"error": {"message": "boom"}}'))
    outcome = _provider(script, sleeps, stream=True).complete(REQUEST)
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.STREAM_ERROR
    assert script.calls == 1 and sleeps.delays == []


@pytest.mark.parametrize("factory", [openai_provider, anthropic_provider, ollama_provider])
def test_an_unreachable_base_url_is_a_value_not_an_exception(factory: object) -> None:
    assert callable(factory)
    provider = factory(
        "m", base_url="notaurl://x", api_key="k", env={}, transport=instant_transport(Sleeps())
    )
    assert isinstance(provider, HttpProvider)
    outcome = provider.complete(REQUEST)
    assert isinstance(outcome, LlmFailure) and outcome.kind is LlmFailureKind.CONFIGURATION


def test_configured_timeouts_reach_every_request() -> None:
    seen: list[dict[str, float | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return json_response(OK)

    client = httpx.Client(transport=httpx.MockTransport(handler))
    provider = openai_provider(
        "m", api_key="k", base_url="http://peer.test", client=client, timeout=7.5, env={}
    )
    assert isinstance(provider.complete(REQUEST), LlmReply)
    assert seen == [{"connect": 10.0, "read": 7.5, "write": 7.5, "pool": 7.5}]


def test_a_server_that_ignores_stream_and_answers_json_is_decoded_whole() -> None:
    sleeps, script = Sleeps(), Script(json_response(OK))
    events = list(_provider(script, sleeps).stream(REQUEST))
    assert len(events) == 1 and isinstance(events[0], StreamCompleted)
    assert isinstance(events[0].outcome, LlmReply) and events[0].outcome.content == "ok"
