"""Live pages: a running run's page, and the runs list, follow a run without the page being reloaded."""

from __future__ import annotations

import threading

import attrs
from selenium.webdriver.chrome.webdriver import WebDriver

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.shell import Performers, Shell
from tests.inspector.machines import COUNTER, Count, Tick
from tests.inspector.pages import text_of, until_text, visit
from tests.inspector.serving import Served


class Gated:
    """The counter run ``live`` started in a thread, held at its third effect until ``release``."""

    def __init__(self, store: SqliteStore) -> None:
        self.reached, self.release = threading.Event(), threading.Event()
        blocking = attrs.evolve(COUNTER, shell=lambda: Shell(Performers().on(Tick, self.gated)))
        self.runner = threading.Thread(
            target=blocking.start, args=(store, Count(target=4), "live"), daemon=True
        )

    def gated(self, effect: Tick) -> int:
        if effect.n == 2:
            self.reached.set()
            assert self.release.wait(30), "the test never released the run"
        return effect.n

    def __enter__(self) -> Gated:
        self.runner.start()
        assert self.reached.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.runner.join(30)


def test_a_running_run_updates_live_until_it_finishes(browser: WebDriver, store: SqliteStore) -> None:
    with Gated(store) as run, Served(store, [COUNTER]) as base:
        visit(browser, f"{base}/#/runs/live", "run")
        assert "running" in text_of(browser, "h1")
        run.release.set()
        until_text(browser, "h1", "finished")  # no reload: the event stream and the record told the page
        until_text(browser, "#step-label", "Step 4 of 4: DONE")
    assert store.get("live").unwrap().status is RunStatus.FINISHED


def test_the_runs_list_shows_a_run_finishing_through_the_change_stream(
    browser: WebDriver, store: SqliteStore
) -> None:
    COUNTER.start(store, Count(target=1), run_id="done-before").unwrap()
    with Gated(store) as run, Served(store, [COUNTER]) as base:
        visit(browser, f"{base}/#/", "runs")
        assert text_of(browser, 'tr[data-run="live"] .badge') == "running"
        browser.execute_script("window.notReloaded = true")
        run.release.set()
        until_text(browser, 'tr[data-run="live"] .badge', "finished")  # from another thread, through /events
        assert text_of(browser, "#status") == "Run live is finished."  # said by the stream's handler alone
        assert text_of(browser, 'tr[data-run="live"] td:nth-of-type(4)') == "4"  # its steps
        assert browser.execute_script("return window.notReloaded") is True
        lists = browser.execute_script(
            "return performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)"
            ".filter((path) => path === '/runs').length"
        )
        assert lists == 1  # the list was read once: the row changed in place, nothing polled
        assert text_of(browser, 'tr[data-run="done-before"] .badge') == "finished"
    assert store.get("live").unwrap().status is RunStatus.FINISHED


def test_the_runs_list_closes_its_change_stream_when_left(browser: WebDriver, store: SqliteStore) -> None:
    """Left and come back to 8 times, the list still loads: Chromium keeps at most six connections to one
    server, and each visit used to leave its change stream open (the sixth visit never loaded)."""
    COUNTER.start(store, Count(target=1), run_id="first").unwrap()
    with Served(store, [COUNTER]) as base:
        for _ in range(8):
            visit(browser, f"{base}/#/", "runs")  # from about:blank: the page before it is left
        browser.get("about:blank")
        browser.back()  # restored from the back/forward cache, its stream closed: shown anew
        until_text(browser, "#status", "Runs shown")
        COUNTER.start(store, Count(target=1), run_id="after").unwrap()
        until_text(browser, 'tr[data-run="after"] .badge', "finished")  # it follows the store again
