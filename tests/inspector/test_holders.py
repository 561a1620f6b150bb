"""Who holds a thread's conversation after a handoff: the thread page, the run's children tree, the API."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, cast

import httpx
from selenium.webdriver.chrome.webdriver import WebDriver

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.running._so_far import forget_known
from agentsm_fn.inspector import run_view
from agentsm_fn.inspector.thread_view import thread_view
from tests.inspector.pages import text_of, visit
from tests.inspector.serving import Served
from tests.teams.holders import BILLING, REFUNDS, TRIAGE


def _objects(value: object) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], value)  # the views' JSON lists of objects


def _handed_thread(store: SqliteStore) -> list[str]:
    """Turn 0 hands off to refunds, turn 1 is refunds' own; the runs of both."""
    return [TRIAGE.chat(store, "t1", said).unwrap().run_id for said in ("Refund A-17 to:refunds", "Thanks")]


def test_the_views_name_the_holder_each_turn_ran_on_and_the_child_that_took_the_conversation(
    store: SqliteStore,
) -> None:
    first, second = _handed_thread(store)
    view = thread_view(store, TRIAGE, "t1").unwrap()
    thread, turns = cast(dict[str, Any], view["thread"]), _objects(view["turns"])
    assert thread["holder"] == REFUNDS.name
    assert [(t["program"], t["holder"]) for t in turns] == [
        (TRIAGE.name, REFUNDS.name),
        (REFUNDS.name, REFUNDS.name),
    ]
    assert [t["answer"] for t in turns] == [  # numbered as the thread's turns, after the handoff too
        "refunds answers after 1 user messages",
        "refunds answers after 2 user messages",
    ]
    [child] = _objects(run_view(store, TRIAGE, store.get(first).unwrap())["children"])
    assert (child["program"], child["holder"]) == (REFUNDS.name, REFUNDS.name)
    assert _objects(run_view(store, REFUNDS, store.get(second).unwrap())["children"]) == []


def test_the_thread_page_and_the_tree_show_who_holds_it(browser: WebDriver, store: SqliteStore) -> None:
    first, _ = _handed_thread(store)
    with Served(store, [TRIAGE, REFUNDS, BILLING]) as base:
        assert httpx.get(f"{base}/threads/t1").json()["holder"] == REFUNDS.name
        visit(browser, f"{base}/#/threads/t1", "thread")
        assert f"held by {REFUNDS.name}" in text_of(browser, "header.run-head")
        who = [text_of(browser, f'li[data-turn="{turn}"] .said.user .who').lower() for turn in (0, 1)]  # caps
        assert f"finished · handed to {REFUNDS.name.lower()}" in who[0]
        assert f"by {REFUNDS.name.lower()} finished" in who[1] and "handed" not in who[1]
        visit(browser, f"{base}/#/runs/{first}", "run")
        assert f"held by {REFUNDS.name}" in text_of(browser, ".children-tree")


def test_the_page_works_out_the_holder_of_a_turn_that_ended_outside_chat(
    store: SqliteStore, tmp_path: Path
) -> None:
    TRIAGE.chat(store, "t1", "Refund A-17 to:refunds").unwrap()
    with closing(sqlite3.connect(tmp_path / "runs.db")) as db, db:  # as if answered and resumed: nothing kept
        db.execute("UPDATE thread_turns SET so_far = NULL")
        db.execute("DELETE FROM turn_holders")
    forget_known()
    assert store.thread("t1").unwrap().holder == TRIAGE.name  # the last turn's own program, until worked out
    view = thread_view(store, TRIAGE, "t1").unwrap()
    assert cast(dict[str, Any], view["thread"])["holder"] == REFUNDS.name
    assert store.thread("t1").unwrap().holder == REFUNDS.name  # and kept
