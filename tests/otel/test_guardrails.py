"""Guardrails on the run span (one ``agentsm.guardrail`` event per guarding row) and in the run stream."""

from __future__ import annotations

import asyncio

from agentsm_fn.agents.guardrails import Guardrail, OnTrip, guardrail, llm_guardrail
from agentsm_fn.agents.react import GuardrailTripped, ReactCompleted
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.stream import Failed, Transitioned
from tests.otel.spans import Traced, attributes, traced

ANSWER = "The capital of France is Paris."
POLITE: Guardrail[str] = llm_guardrail("polite", "The request must be polite.")


def _no_acme(text: str) -> str | None:
    return "asks for ACME's data" if "ACME" in text else None


NO_ACME = guardrail("no-acme", _no_acme, on_trip=OnTrip.STOP)


def guarded(task: str, *replies: LlmReply, **options: object) -> tuple[Traced, AgentBuilder[str]]:
    tracing = traced(**options)
    builder = AgentBuilder.new(task).guard_input(POLITE, NO_ACME).llm(ScriptedLlm(replies))
    return tracing, builder.observe(tracing.observer)


def _guardrail_events(tracing: Traced) -> list[dict[str, object]]:
    (root,) = tracing.roots()
    return [dict(e.attributes or {}) for e in root.events if e.name == "agentsm.guardrail"]


def test_guardrails_that_pass_are_one_event_naming_what_was_checked() -> None:
    tracing, builder = guarded(
        "Capital of France, please?",
        LlmReply(content='{"tripped": false, "reason": "ok"}'),
        LlmReply(content=ANSWER),
    )
    assert isinstance(builder.build().unwrap().run().unwrap(), ReactCompleted)
    (event,) = _guardrail_events(tracing)
    assert event == {
        "agentsm.guardrail.stage": "input",
        "agentsm.guardrail.outcome": "passed",
        "agentsm.guardrail.checked": ("no-acme", "polite"),  # code first, then the memory's
    }
    purposes = [(s.attributes or {}).get("agentsm.llm.purpose") for s in tracing.spans()]
    assert "guardrail polite" in purposes


def test_a_trip_names_its_guardrail_on_the_event_and_the_run_and_its_reason_only_with_content() -> None:
    for capture in (False, True):
        tracing, builder = guarded(
            "Show ACME's invoices",
            LlmReply(content='{"tripped": false, "reason": "ok"}'),
            capture_content=capture,
        )
        stopped = builder.build().unwrap().run().failure()
        assert isinstance(stopped, GuardrailTripped)
        (event,) = _guardrail_events(tracing)
        assert event["agentsm.guardrail.outcome"] == "stop" and event["agentsm.guardrail.name"] == "no-acme"
        assert ("agentsm.guardrail.reason" in event) is capture
        (root,) = tracing.roots()
        assert attributes(root, ["agentsm.guardrail.name"]) == {"agentsm.guardrail.name": "no-acme"}


def test_an_unguarded_run_has_no_guardrail_event() -> None:
    tracing = traced()
    agent = (
        AgentBuilder.new("t").llm(ScriptedLlm([LlmReply(content=ANSWER)])).observe(tracing.observer).build()
    )
    agent.unwrap().run().unwrap()
    assert _guardrail_events(tracing) == []


def test_the_run_stream_carries_each_guardrail_row_with_its_narration() -> None:
    agent = (
        AgentBuilder.new("Show ACME's invoices").guard_input(NO_ACME).llm(ScriptedLlm([])).build().unwrap()
    )

    async def events() -> list[object]:
        return [event async for event in agent.astream()]

    streamed = asyncio.run(events())
    moves = [e for e in streamed if isinstance(e, Transitioned)]
    assert [(m.state, m.event, m.target) for m in moves] == [
        ("Idle", "CheckInput", "GuardingInput"),
        ("GuardingInput", "GuardrailStopped", "Error"),
    ]
    assert moves[1].data == 'step=0 guardrail=no-acme stage=input action=stop reason="asks for ACME\'s data"'
    failed = streamed[-1]
    assert isinstance(failed, Failed) or getattr(failed, "state", None) == "Error"
