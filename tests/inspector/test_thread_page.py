"""A person reads a thread as a chat, opens a turn's run, answers its waiting turn, edits a message."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from tests.inspector.pages import ready, shot, text_of, until_text, visit
from tests.inspector.serving import Served
from tests.inspector.threads import desk, support_thread


def test_read_a_thread_answer_its_waiting_turn_and_edit_an_earlier_message(
    browser: WebDriver, store: SqliteStore, shots: Path
) -> None:
    agent = desk()
    runs = support_thread(store, agent)  # turn 1 calls a tool; turn 2 waits for an approval
    with Served(store, [agent]) as base:
        visit(browser, f"{base}/#/", "runs")  # the runs list says which thread and turn each run is
        assert text_of(browser, f'tr[data-run="{runs[1]}"] td.thread') == "chat-1 · turn 1"
        browser.find_element(By.CSS_SELECTOR, f'tr[data-run="{runs[1]}"] td.thread a').click()
        ready(browser, "thread")
        turn = 'li[data-turn="1"]'
        assert text_of(browser, f"{turn} .said.user p") == "Where is order A-17?"
        assert text_of(browser, f"{turn} .answer") == "Order A-17 ships tomorrow, Ada."
        folded = browser.find_element(By.CSS_SELECTOR, f"{turn} details.steps")
        assert folded.get_attribute("open") is None and folded.text == "1 tool call"  # folded
        folded.find_element(By.TAG_NAME, "summary").click()  # the list is made when opened: wait for it
        called = 'order_status({"order":"A-17"})\n→ SUCCESS: ships tomorrow'
        until_text(browser, f"{turn} details.steps", called)
        shot(browser, shots / "thread.png")

        browser.find_element(By.CSS_SELECTOR, f"{turn} a.turn-run").click()  # each turn links to its run
        ready(browser, "run")
        assert runs[1] in text_of(browser, "h1")
        assert text_of(browser, "p.turn-of") == "Turn 1 of thread chat-1"  # and the run links back to it
        browser.back()
        ready(browser, "thread")

        assert "AskHuman refund" in text_of(browser, 'li[data-turn="2"] section.pending')
        browser.find_element(By.ID, "approve").click()  # answered here, as on the run page
        until_text(browser, 'li[data-turn="2"] .answer', "Order A-17 is refunded, Ada.")
        assert text_of(browser, 'li[data-turn="2"] .badge') == "finished"

        browser.find_element(By.CSS_SELECTOR, f"{turn} button.edit-turn").click()  # edit and run again
        edited = browser.find_element(By.ID, "edit-1")
        edited.clear()
        edited.send_keys("Where is order B-42?")
        browser.find_element(By.CSS_SELECTOR, f"{turn} button.run-again").click()
        until_text(browser, f"{turn} .answer", "Order B-42 was delivered yesterday, Ada.")  # the new thread
        fork = browser.execute_script("return decodeURIComponent(location.hash.split('/')[2])")
        assert fork != "chat-1" and "forked from chat-1 · turn 1" in text_of(browser, "header.run-head")
        assert [t.message for t in store.turns(fork).unwrap()] == ["My name is Ada.", "Where is order B-42?"]
        assert len(store.turns("chat-1").unwrap()) == 3  # the original is left as it was

        visit(browser, f"{base}/#/threads", "threads")  # newest first: the fork, then its parent
        listed = browser.find_elements(By.CSS_SELECTOR, "tr[data-thread]")
        assert [row.get_attribute("data-thread") for row in listed] == [fork, "chat-1"]
