"""Summaries over repeats, the statistics behind them, comparisons, and the reports."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsm_fn.evals import (
    CaseRun,
    Grade,
    Trend,
    compare,
    comparison_json,
    junit_xml,
    render_comparison,
    render_table,
    report_json,
    summarize,
)
from agentsm_fn.evals.results import case_run_from_json
from agentsm_fn.evals.stats import fisher_p, mean_interval, t_quantile, welch_p, wilson
from agentsm_fn.llm import Usage

# Student's t quantiles from the published tables (two-sided 95%, 99%).
T_TABLE = {(0.975, 1): 12.706, (0.975, 2): 4.303, (0.975, 9): 2.262, (0.995, 5): 4.032, (0.975, 30): 2.042}


def test_t_quantiles_match_the_tables() -> None:
    for (p, df), expected in T_TABLE.items():
        assert math.isclose(t_quantile(p, df), expected, abs_tol=1e-3)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=2, max_size=12))
def test_a_mean_interval_holds_the_mean_and_narrows_with_confidence(values: list[float]) -> None:
    wide, narrow = mean_interval(values, 0.99), mean_interval(values, 0.8)
    assert wide.low <= narrow.low <= narrow.value <= narrow.high <= wide.high


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 30).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilsons_interval_stays_in_zero_one_around_the_rate(counts: tuple[int, int]) -> None:
    passed, runs = counts
    i = wilson(passed, runs)
    assert 0.0 <= i.low <= i.value <= i.high <= 1.0


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.data())
def test_fisher_is_a_probability_and_symmetric(a_runs: int, b_runs: int, data: st.DataObject) -> None:
    a, b = data.draw(st.integers(0, a_runs)), data.draw(st.integers(0, b_runs))
    p = fisher_p(a, a_runs, b, b_runs)
    assert 0.0 < p <= 1.0
    assert math.isclose(p, fisher_p(b, b_runs, a, a_runs))


def test_welch_tells_apart_clearly_different_scores_and_not_noise() -> None:
    assert welch_p([0.9, 0.95, 1.0, 0.9], [0.1, 0.2, 0.15, 0.1]) < 0.001  # type: ignore[operator]
    assert welch_p([0.5, 0.7, 0.6], [0.6, 0.5, 0.7]) > 0.9  # type: ignore[operator]


def run(case: str, repeat: int, *grades: Grade, **fields: Any) -> CaseRun:
    return CaseRun(
        case=case, repeat=repeat, run_id=f"{case}-{repeat}", status="finished", grades=grades, **fields
    )


def judged(case: str, scores: list[float]) -> list[CaseRun]:
    return [run(case, i, Grade(evaluator="judge", score=s, passed=s >= 0.5)) for i, s in enumerate(scores)]


def test_a_case_run_round_trips_through_json() -> None:
    one = run("a", 2, Grade(evaluator="j", score=0.5, label="ok", reason="fine"), usage=Usage(3, 4), cost=0.1)
    assert case_run_from_json(json.loads(json.dumps(one.to_json()))) == one


def test_summaries_give_pass_rate_and_mean_score_over_repeats() -> None:
    (s,) = summarize(judged("a", [1.0, 0.0, 1.0, 1.0]))
    assert (s.runs, s.passes, s.score.value, s.evaluators["judge"]) == (4, 3, 0.75, 0.75)
    assert s.score.low < 0.75 < s.score.high


def test_a_comparison_flags_a_planted_regression_and_leaves_noise_unchanged() -> None:
    baseline = judged("steady", [0.8, 0.9, 0.85]) + judged("broken", [0.9, 1.0, 0.95])
    baseline += judged("noisy", [0.5, 0.7, 0.6]) + judged("gone", [1.0])
    candidate = judged("steady", [0.8, 0.9, 0.85]) + judged("broken", [0.1, 0.0, 0.2])
    candidate += judged("noisy", [0.6, 0.5, 0.7]) + judged("new", [1.0])
    found = compare("v1", baseline, "v2", candidate)
    assert {c.case: c.change for c in found.cases} == {
        "steady": Trend.UNCHANGED,
        "broken": Trend.REGRESSED,
        "noisy": Trend.UNCHANGED,
        "gone": Trend.REMOVED,
        "new": Trend.ADDED,
    }
    broken = found.regressed[0]
    assert math.isclose(broken.delta, -0.85) and broken.p_value is not None and broken.p_value < 0.05
    assert comparison_json(found)["regressed"] == 1
    table = render_comparison(found)
    assert table.splitlines()[0] == "v2 against v1: 1 regressed, 0 improved, 2 unchanged, 1 added, 1 removed"


def test_with_one_run_a_side_any_change_counts() -> None:
    assert compare("a", judged("x", [1.0]), "b", judged("x", [0.0])).regressed[0].p_value is None
    assert compare("a", judged("x", [0.0]), "b", judged("x", [0.5])).improved


def test_reports_show_every_case_and_why_it_failed() -> None:
    runs = [
        run("fr", 0, Grade(evaluator="contains 'Paris'", passed=True)),
        run("de", 0, Grade(evaluator="contains 'Berlin'", passed=False, reason="not in Bonn")),
        CaseRun(case="it", repeat=0, run_id="", status="", error="input: no field 'tsak'"),
    ]
    table = render_table("v1", runs)
    assert "de    FAIL    0.00   0       0.0000  contains 'Berlin': not in Bonn" in table
    assert table.endswith("passed 1/3 (33%), mean score 0.33 ±1.43, 0 tokens, cost 0.0000")
    assert report_json("v1", runs)["totals"]["passes"] == 1  # type: ignore[index, call-overload]
    suite = ET.fromstring(junit_xml("v1", runs))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    failure = suite.find("testcase[@name='de']/failure")
    assert failure is not None and failure.get("message") == "contains 'Berlin': not in Bonn"
