"""A run's children on its page: the tree (nested under theirs), the step that started them, the parent."""

from __future__ import annotations

import asyncio
from contextlib import closing
from pathlib import Path
from typing import Any, cast

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import SqliteStore
from agentsm_fn.inspector import run_view
from tests.inspector.pages import shot, text_of, until_text, visit
from tests.inspector.serving import Served
from tests.inspector.teams import GRAND
from tests.teams.programs import CHILD, DELEGATOR, FANNER, STRICT, Boss


def _objects(value: object) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], value)  # the view's JSON lists of objects


def test_the_view_gives_the_tree_the_steps_that_started_it_and_the_parent(store: SqliteStore) -> None:
    GRAND.start(store, Boss(n=1), run_id="g").unwrap()
    view = run_view(store, GRAND, store.get("g").unwrap())
    [child] = _objects(view["children"])
    assert child["run_id"] == "g.c0" and child["status"] == "finished" and child["step"] == 1
    assert [c["run_id"] for c in child["children"]] == ["g.c0.c0"]
    assert _objects(view["journal"])[0]["children"] == ["g.c0"]
    assert _objects(view["steps"])[1]["children"] == ["g.c0"]
    grandchild = run_view(store, CHILD, store.get("g.c0.c0").unwrap())
    assert grandchild["parent"] == {"run_id": "g.c0", "seq": 0, "index": -1, "program": CHILD.name}
    assert view["parent"] is None


def test_a_fan_outs_failed_child_says_why_and_where(store: SqliteStore) -> None:
    FANNER.start(store, Boss(items=(1, 13)), run_id="f").unwrap()
    children = _objects(run_view(store, FANNER, store.get("f").unwrap())["children"])
    assert [(c["index"], c["status"]) for c in children] == [(0, "finished"), (1, "failed")]
    assert "thirteen is unlucky" in children[1]["outcome"]


def test_the_tree_shows_and_links_both_ways(browser: WebDriver, store: SqliteStore, shots: Path) -> None:
    GRAND.start(store, Boss(n=1), run_id="g").unwrap()
    with Served(store, [GRAND, DELEGATOR, CHILD]) as base:
        visit(browser, f"{base}/#/runs/g", "run")
        tree = text_of(browser, ".children-tree")
        assert "g.c0" in tree and "g.c0.c0" in tree and "finished" in tree
        nested = browser.find_element(By.CSS_SELECTOR, 'li.child[data-run="g.c0"] ul.children li.child')
        assert nested.get_attribute("data-run") == "g.c0.c0"
        assert "g.c0" in text_of(browser, "table.journal")
        shot(browser, shots / "run-children.png")
        nested.find_element(By.CSS_SELECTOR, "a").click()
        until_text(browser, "h1", "g.c0.c0")
        until_text(browser, ".child-of", "g.c0")
        browser.find_element(By.CSS_SELECTOR, ".child-of a").click()
        until_text(browser, "h1", "Run g.c0 ")
        until_text(browser, ".started-children", "g.c0.c0")


def test_a_waiting_parents_tree_follows_its_children_as_they_run(
    browser: WebDriver, store: SqliteStore, tmp_path: Path
) -> None:
    # one child at a time; the parent waits
    asyncio.run(STRICT.astart(store, Boss(items=(1, 2)), run_id="s", inline=False))
    with Served(store, [STRICT, CHILD]) as base:
        visit(browser, f"{base}/#/runs/s", "run")
        assert "ready" in text_of(browser, 'li.child[data-run="s.c0.0"]')
        with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as worker:
            # the first child ends; the parent still waits (inline=False: a worker's way)
            CHILD.resume(worker, "s.c0.0", inline=False).unwrap()
        until_text(browser, 'li.child[data-run="s.c0.0"]', "finished")
        assert store.get("s").unwrap().status.value == "waiting"
