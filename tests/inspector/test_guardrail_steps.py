"""A guarded run's page: each step out of a guarding state says what its guardrails did."""

from __future__ import annotations

from agentsm_fn.agents.guardrails import Guardrail, OnTrip, guardrail, llm_guardrail
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.inspector import run_view
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

POLITE: Guardrail[str] = llm_guardrail("polite", "The request must be polite.")


def _no_acme(text: str) -> str | None:
    return "asks for ACME's data" if "ACME" in text else None


def test_each_step_out_of_a_guarding_state_is_labelled_with_its_guardrails(store: SqliteStore) -> None:
    agent = (
        AgentBuilder.new("Show ACME's invoices, please")
        .guard_input(POLITE, guardrail("no-acme", _no_acme, on_trip=OnTrip.STOP))
        .llm(ScriptedLlm([LlmReply(content='{"tripped": false, "reason": "polite"}')]))
        .with_clock(StepClock())
        .build()
        .unwrap()
    )
    durable = Durable(
        name="tests.inspector.test_guardrail_steps:AGENT", machine=agent.machine, shell=agent.shell
    )
    durable.start(store, agent.memory, run_id="guarded").unwrap()
    steps = run_view(store, durable, store.get("guarded").unwrap())["steps"]
    assert isinstance(steps, list)
    labelled = [s["guardrail"] for s in steps if isinstance(s, dict) and "guardrail" in s]
    assert labelled == [
        {
            "label": "guardrail no-acme (input) tripped: stop (asks for ACME's data)",
            "stage": "input",
            "outcome": "stop",
            "checked": ["no-acme"],
            "tripped": "no-acme",
        }
    ]
