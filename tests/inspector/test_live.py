"""A running run's page follows it live: it moves on and finishes without the page being reloaded."""

from __future__ import annotations

import threading

import attrs
from selenium.webdriver.chrome.webdriver import WebDriver

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.shell import Performers, Shell
from tests.inspector.machines import COUNTER, Count, Tick
from tests.inspector.pages import text_of, until_text, visit
from tests.inspector.serving import Served


def test_a_running_run_updates_live_until_it_finishes(browser: WebDriver, store: SqliteStore) -> None:
    reached, release = threading.Event(), threading.Event()

    def gated(effect: Tick) -> int:
        if effect.n == 2:
            reached.set()
            assert release.wait(30), "the test never released the run"
        return effect.n

    blocking = attrs.evolve(COUNTER, shell=lambda: Shell(Performers().on(Tick, gated)))
    runner = threading.Thread(target=blocking.start, args=(store, Count(target=4), "live"), daemon=True)
    runner.start()
    try:
        assert reached.wait(30)
        with Served(store, [COUNTER]) as base:
            visit(browser, f"{base}/#/runs/live", "run")
            assert "running" in text_of(browser, "h1")
            release.set()
            until_text(browser, "h1", "finished")  # no reload: the event stream and the record told the page
            until_text(browser, "#step-label", "Step 4 of 4: DONE")
    finally:
        release.set()
        runner.join(30)
    assert store.get("live").unwrap().status is RunStatus.FINISHED
