"""Effect failures on effect spans: ``error.type`` and the error status, read from the in-memory exporter."""

from __future__ import annotations

import asyncio
import threading

import pytest
from opentelemetry.trace import StatusCode

from agentsm_fn import EffectFailure, Performers, Shell, StepClock, arun, run
from agentsm_fn.agents.react import AgentFailed
from agentsm_fn.llm import LlmOutcome, LlmRequest
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.core.sample import Ask, Mem, sample_machine
from tests.otel.spans import attributes, traced


def test_a_raising_performer_sets_the_exception_type_and_the_failure_kind() -> None:
    tracing = traced()

    def boom(_effect: Ask) -> int:
        raise ConnectionError("card network down")

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, boom), StepClock(), tracing.observer))
    (ask,) = tracing.named("Ask")
    assert ask.status.status_code is StatusCode.ERROR
    assert attributes(ask, ["error.type", "agentsm.effect.failure"]) == {
        "error.type": "ConnectionError",
        "agentsm.effect.failure": "raised",
    }


def test_a_raising_performer_leaves_no_credential_in_any_span(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("PAYMENTS_API_KEY", key)
    tracing = traced()

    def refuse(_effect: Ask) -> int:
        raise PermissionError(f"card API said 401 for key {key}")

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, refuse), StepClock(), tracing.observer))
    (ask,) = tracing.named("Ask")
    assert ask.status.description == "performer raised PermissionError: card API said 401 for key [redacted]"
    assert tracing.spans() and all(key not in span.to_json() for span in tracing.spans())


@pytest.mark.parametrize("mode", ["run", "arun"])
def test_a_timed_out_performer_ends_its_span_with_the_timeout(mode: str) -> None:
    tracing = traced()
    release = threading.Event()

    def hang(_effect: Ask) -> int:
        release.wait(30)
        return 1

    shell = Shell(Performers().on(Ask, hang, timeout=0.05), StepClock(), tracing.observer)
    try:
        if mode == "run":
            result = run(sample_machine(), Mem(), shell)
        else:
            result = asyncio.run(arun(sample_machine(), Mem(), shell))
    finally:
        release.set()
    assert "timed out" in result.failure().reason.describe()
    (ask,), (root,) = tracing.named("Ask"), tracing.roots()
    assert ask.status.status_code is StatusCode.ERROR
    assert ask.status.description == "Ask: performer timed out: no outcome within 0.05s"
    assert attributes(ask, ["error.type", "agentsm.effect.failure"]) == {
        "error.type": "timed_out",
        "agentsm.effect.failure": "timed_out",
    }
    assert ask.end_time is not None and ask.parent is not None
    assert ask.parent.span_id == root.context.span_id


def test_a_failure_delivered_as_the_outcome_sets_its_kind() -> None:
    tracing = traced()
    unknown = EffectFailure.unknown("Ask")
    shell = Shell(Performers().on(Ask, lambda _e: unknown), StepClock(), tracing.observer)
    run(sample_machine(), Mem(), shell)
    (ask,) = tracing.named("Ask")
    assert ask.status.status_code is StatusCode.ERROR
    assert attributes(ask)["error.type"] == "unknown"
    assert ask.status.description == unknown.describe()


class _Down:
    """An LLM provider whose every call raises (a bug in it, say)."""

    def complete(self, request: LlmRequest) -> LlmOutcome:
        raise OSError("provider down")


def test_a_raising_llm_provider_fails_the_chat_span_and_the_agent_goes_on_to_its_error() -> None:
    tracing = traced()
    agent = AgentBuilder.new("hi").llm(_Down()).model("m").observe(tracing.observer).build().unwrap()
    assert isinstance(agent.run().failure(), AgentFailed)
    (chat,) = tracing.named("chat m")
    assert chat.status.status_code is StatusCode.ERROR
    assert attributes(chat, ["error.type", "agentsm.effect.failure"]) == {
        "error.type": "OSError",
        "agentsm.effect.failure": "raised",
    }
