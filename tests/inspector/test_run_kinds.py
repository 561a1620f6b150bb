"""Runs of every kind: a failed run says why, an agent's run reads as a chat, secrets stay hidden."""

from __future__ import annotations

from pathlib import Path

import attrs
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from agentsm_fn.shell import Performers, Shell
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.example_modules import example
from tests.inspector.machines import COUNTER, Count, Tick
from tests.inspector.pages import memory_field, shot, text_of, until_text, visit
from tests.inspector.serving import Served

SECRET = "Authorization: Bearer abcdefgh12345678"


def _breaks_at_two(effect: Tick) -> int:
    if effect.n == 2:
        raise ConnectionError("the counter service is down")
    return effect.n


def test_a_failed_run_says_why_in_words(browser: WebDriver, store: SqliteStore, shots: Path) -> None:
    failing = attrs.evolve(COUNTER, shell=lambda: Shell(Performers().on(Tick, _breaks_at_two)))
    failing.start(store, Count(target=5), run_id="c-failed")
    with Served(store, [COUNTER]) as base:
        visit(browser, f"{base}/#/runs/c-failed", "run")
        alert = text_of(browser, ".alert.failed")
        assert alert.startswith("This run failed.")
        assert "Tick" in alert and "the counter service is down" in alert
        assert "failed" in text_of(browser, "h1")
        shot(browser, shots / "run-failed.png")


def test_nothing_secret_reaches_the_page(browser: WebDriver, store: SqliteStore) -> None:
    COUNTER.start(store, Count(target=2, note=SECRET), run_id="c-secret").unwrap()
    with Served(store, [COUNTER]) as base:
        visit(browser, f"{base}/#/runs/c-secret?step=1", "run")
        assert memory_field(browser, "note") == '"Authorization: Bearer [redacted]"'
        browser.find_element(By.CSS_SELECTOR, "#fork-panel summary").click()
        assert "abcdefgh12345678" not in browser.page_source
        browser.get(f"{base}/inspector/api/runs/c-secret")
        assert "abcdefgh12345678" not in browser.page_source


def test_a_react_agents_run_reads_as_a_conversation(
    browser: WebDriver, store: SqliteStore, shots: Path
) -> None:
    agents = example("human_approval_agent")
    agent = agents.make_agent(ScriptedLlm([agents.ask_to_send()]))
    waiting = agents.durable_for(agent).start(store, agent.memory).unwrap()
    with Served(store, [agents.EMAIL_AGENT]) as base:
        visit(browser, f"{base}/#/runs/{waiting.run_id}", "run")
        chat = browser.find_elements(By.CSS_SELECTOR, "ol.chat li")
        assert chat[0].text.startswith("USER") and agents.TASK in chat[0].text
        assert "send_email" in chat[1].text and "team@example.com" in chat[1].text
        assert "send_email" in text_of(browser, "section.pending")  # what it waits on
        shot(browser, shots / "run-agent.png")
        browser.find_element(By.ID, "reject-reason").send_keys("wait for the date")
        browser.find_element(By.ID, "reject").click()  # the reason reaches the agent as Rejected(reason)
        until_text(browser, "h1", "finished")
        until_text(browser, "ol.chat", "rejected: wait for the date")
