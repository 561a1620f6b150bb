"""A token-protected server in the browser: the page asks for the token once and sends it as a header."""

from __future__ import annotations

import httpx
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.inspector import PAGE_PATHS
from tests.inspector.machines import COUNTER, Count
from tests.inspector.pages import ready, text_of, until_text, visit
from tests.inspector.serving import Served

TOKEN = "inspector-token-5f0c1e2d9a"


def _give(browser: WebDriver, token: str) -> None:
    field = browser.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    browser.find_element(By.CSS_SELECTOR, "form.token button").click()


def test_the_page_asks_for_the_token_refuses_a_wrong_one_and_shows_the_runs(
    browser: WebDriver, store: SqliteStore
) -> None:
    COUNTER.start(store, Count(target=2), run_id="guarded-1").unwrap()
    with Served(store, [COUNTER], token=TOKEN) as base:
        visit(browser, f"{base}/#/", "token")
        assert "needs its token" in text_of(browser, "h1")
        _give(browser, "not-the-token")
        until_text(browser, "#token-message", "The server refused this token (401 unauthorized)")
        assert browser.execute_script("return sessionStorage.length") == 0  # a refused token is not kept
        _give(browser, TOKEN)
        ready(browser, "runs")
        until_text(browser, 'tr[data-run="guarded-1"] .badge', "finished")
        COUNTER.start(store, Count(target=1), run_id="guarded-2").unwrap()
        until_text(browser, 'tr[data-run="guarded-2"] .badge', "finished")  # /events read with the header
        visit(browser, f"{base}/#/runs/guarded-1", "run")  # another page, a reload: asked once per tab
        assert "finished" in text_of(browser, "h1")
        resources = browser.execute_script(
            "return performance.getEntriesByType('resource').map((e) => e.name)"
        )
        assert resources and all(TOKEN not in name for name in resources)  # never in an address
        for path in ("/runs", "/events", "/runs/guarded-1", "/inspector/api/runs/guarded-1", "/openapi.json"):
            refused = httpx.get(base + path, timeout=10)
            assert refused.status_code == 401 and refused.json()["error"]["kind"] == "unauthorized", path
        for path in sorted(PAGE_PATHS):  # the page and its files hold no run: loaded without the token
            assert httpx.get(base + path, timeout=10).status_code == 200, path
        assert httpx.post(base + "/", json={}, timeout=10).status_code == 401  # only a GET of them
