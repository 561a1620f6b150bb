"""A person opens the experiments, one experiment's scores per case filtered by evaluator and result, and one
case in two experiments beside the comparison of its runs (in headless Chromium)."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from agentsm_fn.durable import SqliteStore
from tests.durable.machines import DURABLE_ORDERS
from tests.inspector.experiments import PRICIER, stored_experiments
from tests.inspector.pages import ready, shot, text_of, until_text, visit
from tests.inspector.serving import Served


def rows(browser: WebDriver) -> list[tuple[str, str]]:
    """The case runs the experiment page shows: (case, result)."""
    return [
        (row.get_attribute("data-case") or "", row.find_element(By.CSS_SELECTOR, "td.verdict").text)
        for row in browser.find_elements(By.CSS_SELECTOR, "table.case-runs tr[data-case]")
    ]


def test_the_experiments_page_shows_each_experiments_scores_and_filters_them(
    browser: WebDriver, store: SqliteStore, shots: Path
) -> None:
    stored_experiments(store)
    with Served(store, [DURABLE_ORDERS, PRICIER]) as base:
        visit(browser, f"{base}/#/experiments", "experiments")
        listed = {
            row.get_attribute("data-experiment"): row.find_element(By.CSS_SELECTOR, "td:nth-of-type(5)").text
            for row in browser.find_elements(By.CSS_SELECTOR, "table.experiments tr[data-experiment]")
        }
        assert listed == {"v1": "2 of 2 (100%)", "v2": "0 of 2 (0%)"}
        browser.find_element(By.LINK_TEXT, "v2").click()
        ready(browser, "experiment")
        assert sorted(rows(browser)) == [("three", "failed"), ("two", "failed")]
        grades = text_of(browser, 'table.case-runs tr[data-case="two"]')
        assert "equals expected: failed (expected 21, got 41)" in grades and "reached DONE: passed" in grades
        Select(browser.find_element(By.ID, "filter-evaluator")).select_by_value("reached DONE")
        until_text(browser, "p.count", "2 of 2 case runs shown")
        assert sorted(rows(browser)) == [("three", "passed"), ("two", "passed")]
        Select(browser.find_element(By.ID, "filter-result")).select_by_value("failed")
        until_text(browser, "p.count", "0 of 2 case runs shown")
        assert "No case run matches." in text_of(browser, "table.case-runs")
        visit(browser, f"{base}/#/experiments/v2?evaluator=equals%20expected&result=failed", "experiment")
        assert sorted(rows(browser)) == [("three", "failed"), ("two", "failed")]
        shot(browser, shots / "experiment.png")


def test_one_case_in_two_experiments_shows_its_grades_side_by_side_and_its_runs_compared(
    browser: WebDriver, store: SqliteStore, shots: Path
) -> None:
    stored_experiments(store)
    with Served(store, [DURABLE_ORDERS, PRICIER]) as base:
        visit(browser, f"{base}/#/experiments/v1", "experiment")
        Select(browser.find_element(By.ID, "compare-with")).select_by_value("v2")
        until_text(browser, "table.case-runs", "two").find_element(By.LINK_TEXT, "two").click()
        ready(browser, "experiment-case")
        assert text_of(browser, "h1") == "Case two in two experiments"
        equals = text_of(browser, 'table.grades-compared tr[data-evaluator="equals expected"]')
        assert equals == "equals expected passed failed (expected 21, got 41)"
        assert (
            text_of(browser, "table.grades-compared tr.total")
            == "the run passed, score 1.00 failed, score 0.67"
        )
        assert text_of(browser, "p.parted") == "Their paths do not part."
        differs = text_of(browser, "table.compare")
        assert "price: A 10 · B 20" in differs and "total: A 21 · B 41" in differs
        shot(browser, shots / "experiment-case.png")
