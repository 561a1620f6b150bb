"""A parent's page shows the approval its child waits for, and Approve answers it through the parent.

The desk agent's tool is the refunds agent, whose refund needs approval: the desk's page (headless
Chromium) shows the refund's approval, with a link to the child, and Approve answers it once
through the desk (``POST /runs/desk/pending/SEQ/answer`` with the child's ``run_id``): the child
runs on, then the desk finishes with the child's answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.inspector import run_view
from tests.inspector.pages import text_of, until_text, visit
from tests.inspector.serving import Served
from tests.teams.approving import DESK, REFUNDED, REFUNDS


@pytest.fixture(autouse=True)
def refunds() -> Iterator[None]:
    REFUNDED.clear()
    yield
    REFUNDED.clear()


def test_the_view_gives_the_childs_pending_approval_under_the_parent(store: SqliteStore) -> None:
    DESK.start(store, DESK.template, run_id="desk").unwrap()
    pending = cast(dict[str, object], run_view(store, DESK, store.get("desk").unwrap())["pending"])
    child = cast(str, pending["run_id"])
    assert child.startswith("desk.c") and pending["path"] == ["desk"]
    assert pending["effect"] == "AskHuman refund" and pending["key"] == f"{child}:{pending['seq']}"


def test_approve_on_the_parents_page_answers_the_child_and_both_finish(
    browser: WebDriver, store: SqliteStore
) -> None:
    DESK.start(store, DESK.template, run_id="desk").unwrap()
    with Served(store, [DESK, REFUNDS]) as base:
        visit(browser, f"{base}/#/runs/desk", "run")
        panel = text_of(browser, "section.pending")
        assert "AskHuman refund" in panel and "Asked inside child run desk.c" in panel
        browser.find_element(By.ID, "approve").click()
        until_text(browser, "h1", "finished")
        assert not browser.find_elements(By.ID, "approve")
    assert REFUNDED == ["A-17"]
    assert all(store.get(r).unwrap().status is RunStatus.FINISHED for r in ("desk", "desk.c1"))
