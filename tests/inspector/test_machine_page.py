"""A person opens a machine's page: the verifier's findings on the graph, and which stored runs diverge."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from tests.inspector.machines import COUNTER, Count
from tests.inspector.pages import ready, shot, text_of, visit
from tests.inspector.serving import Served


def test_the_machine_page_of_a_changed_machine_says_which_run_diverges_and_where(
    browser: WebDriver, store: SqliteStore, orders: ModuleType, shots: Path
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    orders.ORDERS.start(store, orders.Order(order_id="o-7"), run_id="o-7").unwrap()  # waits for approval
    with Served(store, [orders.ORDERS_V2]) as base:  # the next version: no APPROVING state
        visit(browser, f"{base}/#/machines/durable_orders:ORDERS", "machine")
        row = browser.find_element(By.CSS_SELECTOR, 'table.checks tr[data-run="o-7"]')
        assert "an older version" in row.text
        assert "diverges at step 1" in row.text and "APPROVING" in row.text
        assert not browser.find_elements(By.CSS_SELECTOR, 'table.checks tr[data-run="o-1"]')  # finished: fine
        assert "proves every property" in text_of(browser, "main")
        shot(browser, shots / "machine-changed.png")
        row.find_element(By.TAG_NAME, "a").click()  # the run, at the step where it diverges
        ready(browser, "run")
        assert text_of(browser, "#step-label").startswith("Step 1 of 1")
        notice = text_of(browser, ".alert.changed")
        assert (
            "another version" in notice and "stopped in APPROVING" in notice and "reaches STOCKING" in notice
        )


def test_the_verifiers_findings_are_marked_on_the_graph_and_listed(
    browser: WebDriver, store: SqliteStore, shots: Path
) -> None:
    COUNTER.start(store, Count(target=3), run_id="c-1").unwrap()
    with Served(store, [COUNTER]) as base:
        visit(browser, f"{base}/#/machines/{COUNTER.name}", "machine")
        findings = text_of(browser, "ul.findings")
        assert "SM002" in findings and "LOST" in findings
        assert "SM009" in findings and "SM010" in findings
        marked = browser.find_elements(By.CSS_SELECTOR, "svg g.finding")
        assert {e.get_attribute("id") for e in marked} >= {"s-0", "s-2", "r-0"}  # COUNTING, LOST, the loop
        alt = browser.find_element(By.CSS_SELECTOR, "details.alt")
        alt.find_element(By.TAG_NAME, "summary").click()
        assert "LOST (final) (SM002)" in alt.text  # the text alternative says it too
        shot(browser, shots / "machine-findings.png")
