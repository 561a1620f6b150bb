"""A guarded run's page: each step out of a guarding state says what its guardrails did (data, Chromium)."""

from __future__ import annotations

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.agents.guardrails import Guardrail, OnTrip, guardrail, llm_guardrail
from agentsm_fn.agents.react import AgentMemory, Event, State
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.inspector import run_view
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.inspector.pages import visit
from tests.inspector.serving import Served

POLITE: Guardrail[str] = llm_guardrail("polite", "The request must be polite.")


def _no_acme(text: str) -> str | None:
    return "asks for ACME's data" if "ACME" in text else None


def _guarded(store: SqliteStore) -> Durable[State, Event, AgentMemory]:
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
    return durable


def test_each_step_out_of_a_guarding_state_is_labelled_with_its_guardrails(store: SqliteStore) -> None:
    durable = _guarded(store)
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


def test_the_run_page_labels_the_guarding_step_in_chromium(browser: WebDriver, store: SqliteStore) -> None:
    durable = _guarded(store)
    steps = run_view(store, durable, store.get("guarded").unwrap())["steps"]
    assert isinstance(steps, list)
    (step,) = [s["step"] for s in steps if isinstance(s, dict) and "guardrail" in s]
    with Served(store, [durable]) as base:
        visit(browser, f"{base}/#/runs/guarded?step={step}", "run")
        label = browser.find_element(By.CSS_SELECTOR, "p.guardrail.tripped")
        assert label.is_displayed()
        assert label.text == "guardrail no-acme (input) tripped: stop (asks for ACME's data)"
        visit(browser, f"{base}/#/runs/guarded?step=0", "run")
        assert not browser.find_element(By.CSS_SELECTOR, "p.guardrail").is_displayed()  # no guardrail there
