"""A person lists runs, answers a waiting run and watches it finish, forks a run and compares the two."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from agentsm_fn.durable import RunStatus, SqliteStore
from tests.inspector.pages import memory_field, ready, shot, text_of, until_text, visit
from tests.inspector.serving import Served


def test_the_runs_list_filters_pages_and_opens_a_run(
    browser: WebDriver, store: SqliteStore, orders: ModuleType, shots: Path
) -> None:
    for number in range(1, 56):
        orders.ORDERS.start(store, orders.Order(order_id=f"o-{number:02}"), run_id=f"o-{number:02}").unwrap()
    orders.ORDERS.start(store, orders.Order(order_id="o-7"), run_id="o-7").unwrap()  # waits for approval
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/", "runs")
        rows = browser.find_elements(By.CSS_SELECTOR, "table.runs tbody tr")
        assert len(rows) == 50  # one page
        first = rows[0].text
        assert first.startswith("o-7") and "waiting" in first and "APPROVING" in first
        shot(browser, shots / "runs.png", whole=False)
        browser.find_element(By.XPATH, "//button[contains(., 'Older')]").click()
        until_text(browser, "p.count", "6 runs on this page")  # "ready" holds before the next page is in
        assert len(browser.find_elements(By.CSS_SELECTOR, "table.runs tbody tr")) == 6
        Select(browser.find_element(By.ID, "filter-status")).select_by_value("waiting")
        until_text(browser, "p.count", "1 run on this page")
        assert [r.text.split()[0] for r in browser.find_elements(By.CSS_SELECTOR, "table.runs tbody tr")] == [
            "o-7"
        ]
        browser.find_element(By.LINK_TEXT, "o-7").click()
        ready(browser, "run")
        assert "Waiting for an answer" in text_of(browser, "section.pending")


@pytest.mark.parametrize(
    ("decision", "state", "approved"), [("approve", "DONE", "true"), ("reject", "CANCELLED", "false")]
)
def test_answer_a_waiting_run_and_watch_it_finish(
    browser: WebDriver,
    store: SqliteStore,
    orders: ModuleType,
    shots: Path,
    decision: str,
    state: str,
    approved: str,
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-7"), run_id="o-7").unwrap()
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/runs/o-7", "run")
        if decision == "approve":
            shot(browser, shots / "run-waiting.png")
            browser.find_element(By.ID, "approve").click()
        else:
            browser.find_element(By.ID, "reject-reason").send_keys("over budget")
            browser.find_element(By.ID, "reject").click()
        until_text(browser, "h1", "finished")
        assert state in text_of(browser, "#step-label")
        assert memory_field(browser, "approved") == approved
        receipt = '"receipt-o-7"' if decision == "approve" else '""'  # charged only once approved
        assert memory_field(browser, "receipt") == receipt
        assert not browser.find_elements(By.ID, "approve")
        assert f"AskManager {approved}" in text_of(
            browser, "table.journal"
        )  # the answer, as the journal holds it
    assert store.get("o-7").unwrap().status is RunStatus.FINISHED


def test_fork_from_a_step_with_an_edited_field_then_compare_with_the_parent(
    browser: WebDriver, store: SqliteStore, orders: ModuleType, shots: Path
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/runs/o-1?step=1", "run")
        browser.find_element(By.CSS_SELECTOR, "#fork-panel summary").click()
        amount = browser.find_element(By.ID, "fork-amount")
        amount.clear()
        amount.send_keys('"lots"')
        browser.find_element(By.ID, "fork").click()
        refused = until_text(browser, "#fork-panel .outcome", "Not forked")
        assert "amount" in refused.text  # the server names the field it refused
        amount.clear()
        amount.send_keys("99")
        browser.find_element(By.ID, "fork").click()
        until_text(browser, ".run-head", "Forked from o-1 at step 1")
        ready(browser, "run")
        fork_id = browser.find_element(By.CSS_SELECTOR, "h1 code").text
        assert fork_id != "o-1"
        shot(browser, shots / "run-fork.png")
        browser.find_element(By.LINK_TEXT, "compare with its parent").click()
        ready(browser, "compare")
        assert text_of(browser, "p.parted") == "Their paths do not part."
        differs = browser.find_element(By.CSS_SELECTOR, "table.compare tbody tr:nth-child(2)").text
        assert differs.startswith("1") and "amount" in differs and "A 40" in differs and "B 99" in differs
        shot(browser, shots / "compare.png")
        visit(browser, f"{base}/#/runs/o-1", "run")
        assert fork_id in text_of(browser, ".run-head")  # the parent links to its fork
