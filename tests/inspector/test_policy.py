"""The inspector works under its own Content-Security-Policy: its page, scripts and Graphviz WebAssembly."""

from __future__ import annotations

from types import ModuleType

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from tests.inspector.pages import visit
from tests.inspector.serving import Served


def _console(browser: WebDriver) -> list[str]:
    """What the page logged since the last call (CSP violations are logged as errors)."""
    entries: list[dict[str, str]] = browser.get_log("browser")  # type: ignore[no-untyped-call]  # Selenium leaves it unannotated
    return [entry["message"] for entry in entries]


def test_the_run_page_draws_its_graph_with_no_policy_violation(
    browser: WebDriver, store: SqliteStore, orders: ModuleType
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    with Served(store, [orders.ORDERS]) as base:
        _console(browser)  # forget what earlier tests logged
        visit(browser, f"{base}/#/runs/o-1?step=3", "run")
        assert browser.find_elements(By.CSS_SELECTOR, "svg .current")  # Graphviz's WebAssembly ran
        browser.find_element(By.CSS_SELECTOR, "a.skip").send_keys("\n")  # the skip link's handler (in app.js)
        assert browser.execute_script("return document.activeElement.id") == "main"
        visit(browser, f"{base}/#/machines", "machines")
        logged = _console(browser)
    assert not [line for line in logged if "Content Security Policy" in line], logged
