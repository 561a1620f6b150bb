"""A person opens a run, steps through it, and reads its memory, effects and path (in headless Chromium)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.operations.forks import fork
from tests.inspector.pages import memory_field, shot, text_of, visit
from tests.inspector.serving import Served


def test_open_a_run_go_to_step_3_and_read_the_memory(
    browser: WebDriver, store: SqliteStore, orders: ModuleType, shots: Path
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-1"), run_id="o-1").unwrap()
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/runs/o-1?step=0", "run")
        assert "Step 0 of 3: PRICING" in text_of(browser, "#step-label")
        assert memory_field(browser, "receipt") == '""'
        slider = browser.find_element(By.ID, "step")
        slider.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        assert "Step 3 of 3: DONE (from CHARGING by CHARGED)" in text_of(browser, "#step-label")
        assert memory_field(browser, "receipt") == '"receipt-o-1"'
        assert '"receipt-o-1"' in text_of(browser, ".changes-box")
        assert browser.find_elements(By.CSS_SELECTOR, "svg .current")  # the graph marks the state
        assert len(browser.find_elements(By.CSS_SELECTOR, "svg .taken")) == 3  # and the path taken
        journal = text_of(browser, "table.journal")
        assert "LookUpPrice" in journal and "o-1:0" in journal and "ChargeCard" in journal
        shot(browser, shots / "run.png")


def test_a_fork_that_waits_on_its_first_effect_says_so_in_its_header_and_in_the_list(
    browser: WebDriver, store: SqliteStore, orders: ModuleType
) -> None:
    orders.ORDERS.start(store, orders.Order(order_id="o-7"), run_id="o-7").unwrap()  # waits for approval
    parent = store.get("o-7").unwrap()
    fork(store, orders.ORDERS.machine, "o-7", parent.steps, orders.ORDERS, None, "o-7w").unwrap()
    forked = store.get("o-7w").unwrap()
    assert (forked.status.value, forked.effects, len(store.journal("o-7w").unwrap())) == ("waiting", 0, 1)
    with Served(store, [orders.ORDERS]) as base:
        visit(browser, f"{base}/#/runs/o-7w", "run")
        head = text_of(browser, "header.run-head p")
        steps = f"{parent.steps} step{'' if parent.steps == 1 else 's'}"
        assert f"state APPROVING · {steps} · 0 effects done, 1 waiting for an answer" in head, head
        visit(browser, f"{base}/#/", "runs")
        cells = {run: text_of(browser, f'tr[data-run="{run}"] td:nth-of-type(5)') for run in ("o-7", "o-7w")}
        assert cells == {"o-7": f"{parent.effects} + 1 waiting", "o-7w": "0 + 1 waiting"}, cells
