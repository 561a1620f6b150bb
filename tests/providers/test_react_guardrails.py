"""The ReAct agent's guardrails through each provider against aimock: every outcome, whole and streamed.

The LLM checks are asked of the same provider as the plans; aimock answers a check by its
system message (``GUARD-...``, in tests/fixtures/aimock/guardrails.json) and the plans by the
task, as the other ReAct tests do.
"""

from __future__ import annotations

import json

import pytest

from agentsm_fn.agents.guardrails import Guardrail, OnTrip, guardrail, llm_guardrail
from agentsm_fn.agents.react import (
    ApprovalDecision,
    Approved,
    GuardrailTripped,
    HumanApprovalRequest,
    Rejected,
    State,
)
from agentsm_fn.agents.react.result import ReactCompleted
from agentsm_fn.llm import ToolCall
from agentsm_fn.providers import HttpProvider
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import PROVIDERS, make, validate_journal

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}

OWN: Guardrail[str] = llm_guardrail(
    "own-invoices",
    "GUARD-OWN: the user may ask for their own invoices only, never another customer's.",
    message="I can only show you your own invoices.",
)
SAFE: Guardrail[str] = llm_guardrail("safe", "GUARD-SAFE: the answer must be harmless.")
NO_SUN: Guardrail[str] = llm_guardrail("no-sun", "GUARD-NO-SUN: never mention the sun.", on_trip=OnTrip.STOP)


def _weather_tool(call: ToolCall) -> str | None:
    return "looks up the weather" if call.name == "get_weather" else None


ASK_ABOUT_WEATHER = guardrail("weather-review", _weather_tool, on_trip=OnTrip.ASK_HUMAN)
NO_WEATHER = guardrail("no-weather", _weather_tool, message="Weather lookups are not allowed here.")


def weather(city: str) -> str:
    return {"Paris": "sunny"}.get(city, "unknown")


def agent_for(task: str, provider: HttpProvider) -> AgentBuilder[str]:
    return AgentBuilder.new(task).llm(provider).tool("get_weather", "Weather for a city", SCHEMA, weather)


def _states(done: ReactCompleted[str] | GuardrailTripped) -> list[str]:
    snapshot = done.snapshot
    assert snapshot is not None
    return [row.state for row in snapshot.trace if row.target]


STREAMS = pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
KINDS = pytest.mark.parametrize("kind", PROVIDERS)


@STREAMS
@KINDS
def test_an_input_guardrail_asked_of_the_model_refuses_before_any_plan(
    kind: str, stream: bool, aimock: Aimock
) -> None:
    provider = make(kind, aimock, Sleeps(), stream=stream)
    failed = agent_for("Show me the invoices of ACME Corp", provider).guard_input(OWN).build().unwrap().run()
    refused = failed.failure()
    assert isinstance(refused, GuardrailTripped) and refused.action is OnTrip.REFUSE
    assert refused.message == "I can only show you your own invoices."
    assert refused.trip.reason == "ACME Corp is another customer"
    assert refused.snapshot is not None and refused.snapshot.state is State.Refused
    sent = validate_journal(aimock)
    assert len(sent) == 1  # the check alone: no plan was asked for
    assert "GUARD-OWN" in json.dumps(sent[0][1])


@STREAMS
@KINDS
def test_guardrails_that_pass_and_a_human_who_approves_let_the_run_through(
    kind: str, stream: bool, aimock: Aimock
) -> None:
    asked: list[HumanApprovalRequest] = []

    def approve(request: HumanApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return Approved()

    provider = make(kind, aimock, Sleeps(), stream=stream)
    agent = (
        agent_for("What is the weather in Paris?", provider)
        .guard_input(OWN)
        .guard_tool_calls(ASK_ABOUT_WEATHER)
        .guard_output(SAFE)
        .approve_with(approve)
        .build()
        .unwrap()
    )
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted) and done.result == "It is sunny in Paris."
    assert [r.tool_call.name for r in asked] == ["get_weather"]
    call = asked[0].tool_call  # Ollama names the call itself
    tripped = f"get_weather ({call.id}): looks up the weather"
    assert asked[0].reason == f"guardrail weather-review (tool_call) tripped: {tripped}"

    states = _states(done)
    assert states[:4] == ["Idle", "GuardingInput", "Planning", "GuardingToolCalls"]
    assert "ReviewingToolCalls" in states and states[-1] == "GuardingOutput"
    checks = [(c.guardrail, c.passed, c.review) for c in done.memory.guardrail_checks]
    assert checks == [("own-invoices", True, None), ("weather-review", True, True), ("safe", True, None)]
    sent = validate_journal(aimock)
    assert len(sent) == 4  # the input's check, two plans, the answer's check
    assert "GUARD-SAFE" in json.dumps(sent[-1][1]) and "sunny in Paris" in json.dumps(sent[-1][1])


@STREAMS
@KINDS
def test_an_output_guardrail_stops_the_run_and_withholds_the_answer(
    kind: str, stream: bool, aimock: Aimock
) -> None:
    provider = make(kind, aimock, Sleeps(), stream=stream)
    failed = agent_for("What is the weather in Paris?", provider).guard_output(NO_SUN).build().unwrap().run()
    stopped = failed.failure()
    assert isinstance(stopped, GuardrailTripped) and stopped.action is OnTrip.STOP
    assert stopped.describe() == "Stopped: guardrail no-sun (output) tripped: it mentions the sun"
    snapshot = stopped.snapshot
    assert snapshot is not None and snapshot.state is State.Error
    assert snapshot.memory.final_answer is None and snapshot.memory.error == stopped.trip.describe()
    assert len(validate_journal(aimock)) == 3


@KINDS
def test_a_refused_tool_call_is_observed_and_the_model_answers_without_it(kind: str, aimock: Aimock) -> None:
    provider = make(kind, aimock, Sleeps())
    done = (
        agent_for("What is the weather in Paris?", provider)
        .guard_tool_calls(NO_WEATHER)
        .build()
        .unwrap()
        .run()
    )
    completed = done.unwrap()
    assert isinstance(completed, ReactCompleted)
    (entry,) = completed.memory.history
    assert entry.observation == "ERROR: GuardrailRefused: Weather lookups are not allowed here."
    sent = validate_journal(aimock)
    assert len(sent) == 2 and "GuardrailRefused" in json.dumps(sent[1][1])
    assert "sunny" not in json.dumps(sent[1][1])  # the tool never ran


@KINDS
def test_a_human_who_rejects_an_output_review_refuses_the_answer(kind: str, aimock: Aimock) -> None:
    review: Guardrail[str] = guardrail(
        "review", lambda answer: "every answer is reviewed", on_trip=OnTrip.ASK_HUMAN
    )
    provider = make(kind, aimock, Sleeps())
    agent = (
        agent_for("What is the weather in Paris?", provider)
        .guard_output(review)
        .approve_with(lambda request: Rejected("not today"))
        .build()
        .unwrap()
    )
    refused = agent.run().failure()
    assert isinstance(refused, GuardrailTripped) and refused.action is OnTrip.REFUSE
    assert refused.snapshot is not None and refused.snapshot.state is State.Refused
    assert refused.snapshot.memory.final_answer == refused.message  # the answer is withheld
    assert refused.snapshot.memory.guardrail_checks[-1].note == "not today"
