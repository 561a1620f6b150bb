"""The run page in a narrow window and from the keyboard alone."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from agentsm_fn.durable import SqliteStore
from tests.inspector.conftest import open_chromium
from tests.inspector.pages import ready, shot, text_of, visit
from tests.inspector.serving import Served


def test_a_narrow_window_shows_the_run_without_sideways_scrolling(
    store: SqliteStore, orders: ModuleType, shots: Path
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    narrow = open_chromium(width=420, height=800)
    try:
        with Served(store, [orders.ORDERS]) as base:
            visit(narrow, f"{base}/#/runs/o-1", "run")
            wide = narrow.execute_script("return document.documentElement.scrollWidth")
            assert wide <= narrow.execute_script("return window.innerWidth")
            graph = narrow.find_element(By.CSS_SELECTOR, "figure.graph svg").size["width"]
            steps = narrow.find_element(By.CSS_SELECTOR, "section.steps")
            assert graph <= 420 and steps.location["y"] > 0  # one column: the steps come below the graph
            shot(narrow, shots / "run-narrow.png")
    finally:
        narrow.quit()


def test_the_keyboard_moves_through_steps_and_reaches_every_control(
    browser: WebDriver, store: SqliteStore, orders: ModuleType
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/runs/o-1", "run")
        keys = ActionChains(browser)
        keys.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT).perform()
        assert text_of(browser, "#step-label").startswith("Step 1 of 3: STOCKING")
        reached: list[str] = []
        for _ in range(40):  # Tab through the page: the step control, the fork panel, compare, the tables
            keys.send_keys(Keys.TAB).perform()
            focused = browser.switch_to.active_element
            reached.append(focused.get_attribute("id") or focused.tag_name)
        assert {"step", "compare-with"} <= set(reached)
        assert "summary" in reached  # the fork panel and the graph's text opens from the keyboard
        browser.find_element(By.ID, "step").send_keys(Keys.END)
        assert text_of(browser, "#step-label").startswith("Step 3 of 3: DONE")
        browser.find_element(By.CSS_SELECTOR, "#fork-panel summary").send_keys(Keys.ENTER)
        assert browser.find_element(By.ID, "fork-panel").get_attribute("open") is not None
        browser.find_element(By.LINK_TEXT, "durable_orders:ORDERS").send_keys(Keys.ENTER)
        ready(browser, "machine")
