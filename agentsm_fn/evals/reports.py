"""An experiment's report: a table for a terminal, JSON for tools, JUnit XML for CI; a comparison's table.

Each is a pure function of the experiment's case runs (as stored), so a report of an
experiment that ran yesterday is the same as the one printed when it finished.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from agentsm_fn.evals.compare import Comparison, Trend
from agentsm_fn.evals.results import CaseRun, CaseSummary, summarize, totals
from agentsm_fn.llm.json import JsonValue

__all__ = ["comparison_json", "junit_xml", "render_comparison", "render_table", "report_json"]


def _columns(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _rate(s: CaseSummary) -> str:
    if s.runs == 1:
        return "pass" if s.passed else "FAIL"
    return f"{s.passes}/{s.runs}"


def _score(s: CaseSummary) -> str:
    if s.runs == 1:
        return f"{s.score.value:.2f}"
    return f"{s.score.value:.2f} ±{s.score.half_width:.2f}"


def _why(runs: Sequence[CaseRun], case: str) -> str:
    for run in runs:
        if run.case == case and not run.passed:
            failed = next((g for g in run.grades if g.failed), None)
            return run.error or ("" if failed is None else f"{failed.evaluator}: {failed.reason}")
    return ""


def render_table(name: str, runs: Sequence[CaseRun]) -> str:
    """A table of the experiment's cases (result, score, tokens, cost, why one failed) and its totals.

    Example:
        >>> print(render_table("v1", [CaseRun(case="fr", repeat=0, run_id="r1", status="finished")]))
        experiment v1: 1 case(s), 1 run(s)
        case  result  score  tokens  cost    why
        fr    pass    1.00   0       0.0000
        passed 1/1 (100%), mean score 1.00, 0 tokens, cost 0.0000
    """
    summaries = summarize(runs)
    total = totals(runs)
    rows = [("case", "result", "score", "tokens", "cost", "why")]
    rows += [
        (s.case, _rate(s), _score(s), str(s.usage.total_tokens), f"{s.cost:.4f}", _why(runs, s.case))
        for s in summaries
    ]
    rate = f"{total.passes}/{total.runs} ({total.pass_rate.value:.0%})"
    score = f"{total.score.value:.2f}" + (f" ±{total.score.half_width:.2f}" if total.cases > 1 else "")
    return "\n".join(
        [
            f"experiment {name}: {total.cases} case(s), {total.runs} run(s)",
            *_columns(rows),
            f"passed {rate}, mean score {score}, {total.usage.total_tokens} tokens, cost {total.cost:.4f}",
        ]
    )


def report_json(name: str, runs: Sequence[CaseRun]) -> dict[str, JsonValue]:
    """The experiment as JSON: totals, each case's summary, and every case run with its grades.

    Example:
        >>> report_json("v1", [])["totals"]["runs"]
        0
    """
    total = totals(runs)
    return {
        "experiment": name,
        "totals": {
            "cases": total.cases,
            "runs": total.runs,
            "passes": total.passes,
            "pass_rate": total.pass_rate.value,
            "score": total.score.value,
            "score_interval": [total.score.low, total.score.high],
            "input_tokens": total.usage.input_tokens,
            "output_tokens": total.usage.output_tokens,
            "cost": total.cost,
            "seconds": total.seconds,
        },
        "cases": [
            {
                "case": s.case,
                "runs": s.runs,
                "passes": s.passes,
                "pass_rate": s.pass_rate.value,
                "pass_rate_interval": [s.pass_rate.low, s.pass_rate.high],
                "score": s.score.value,
                "score_interval": [s.score.low, s.score.high],
                "evaluators": dict(s.evaluators),
                "tokens": s.usage.total_tokens,
                "cost": s.cost,
            }
            for s in summarize(runs)
        ],
        "runs": [run.to_json() for run in runs],
    }


def junit_xml(name: str, runs: Sequence[CaseRun]) -> str:
    r"""JUnit XML: one test case per case run (``case`` or ``case[repeat]``), a failure naming its grade.

    Example:
        >>> xml = junit_xml("v1", [CaseRun(case="fr", repeat=0, run_id="r1", status="finished")])
        >>> print(xml.replace("><", ">\n<"))
        <?xml version='1.0' encoding='utf-8'?>
        <testsuite name="v1" tests="1" failures="0" errors="0" time="0.000">
        <testcase classname="v1" name="fr" time="0.000" />
        </testsuite>
    """
    repeated = any(run.repeat > 0 for run in runs)
    suite = ET.Element(
        "testsuite",
        name=name,
        tests=str(len(runs)),
        failures=str(sum(not r.passed and not r.error for r in runs)),
        errors=str(sum(bool(r.error) for r in runs)),
        time=f"{sum(r.seconds for r in runs):.3f}",
    )
    for run in runs:
        title = f"{run.case}[{run.repeat}]" if repeated else run.case
        case = ET.SubElement(suite, "testcase", classname=name, name=title, time=f"{run.seconds:.3f}")
        if run.error:
            ET.SubElement(case, "error", message=run.error).text = f"run {run.run_id}: {run.error}"
        for grade in (g for g in run.grades if g.failed):
            failure = ET.SubElement(case, "failure", message=f"{grade.evaluator}: {grade.reason}")
            failure.text = f"run {run.run_id}: {grade.evaluator} failed: {grade.reason}"
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)


def _p(p: float | None) -> str:
    return "" if p is None else f"{p:.3f}"


def render_comparison(comparison: Comparison) -> str:
    """A table of every case's change (score before and after, delta, p-value) and the counts.

    Example:
        >>> print(render_comparison(Comparison(baseline="v1", candidate="v2", cases=())))
        v2 against v1: 0 regressed, 0 improved, 0 unchanged, 0 added, 0 removed
    """
    rows = [("case", "change", comparison.baseline, comparison.candidate, "delta", "p")]
    for c in comparison.cases:
        before = "" if c.baseline is None else f"{c.baseline.score.value:.2f}"
        after = "" if c.candidate is None else f"{c.candidate.score.value:.2f}"
        rows.append((c.case, c.change.value, before, after, f"{c.delta:+.2f}", _p(c.p_value)))
    counts = ", ".join(f"{len(comparison.having(k))} {k.value}" for k in Trend)
    head = f"{comparison.candidate} against {comparison.baseline}: {counts}"
    return "\n".join([head, *_columns(rows)]) if comparison.cases else head


def comparison_json(comparison: Comparison) -> dict[str, JsonValue]:
    """The comparison as JSON: each case's change, scores, delta and p-value.

    Example:
        >>> comparison_json(Comparison(baseline="v1", candidate="v2", cases=()))["regressed"]
        0
    """
    return {
        "baseline": comparison.baseline,
        "candidate": comparison.candidate,
        **{k.value: len(comparison.having(k)) for k in Trend},
        "cases": [
            {
                "case": c.case,
                "change": c.change.value,
                "baseline": None if c.baseline is None else c.baseline.score.value,
                "candidate": None if c.candidate is None else c.candidate.score.value,
                "delta": c.delta,
                "p_value": c.p_value,
            }
            for c in comparison.cases
        ],
    }
