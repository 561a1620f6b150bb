"""What an experiment found: one :class:`CaseRun` per run of a case, and summaries over repeats.

A case run is the run's id, how it ended, its grades, its tokens, cost and seconds. It has a
JSON form (:meth:`CaseRun.to_json`, :func:`case_run_from_json`): the experiment stores it in
the run store next to the run, so reports, comparisons and the inspector read it back.
:func:`summarize` folds the runs of each case (its repeats) into a :class:`CaseSummary`:
pass rate with Wilson's interval, mean score with Student's t interval, tokens and cost.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from statistics import fmean

import attrs

from agentsm_fn.evals.grades import Grade, grade_from_json
from agentsm_fn.evals.stats import Interval, mean_interval, wilson
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.llm.replies import Usage

__all__ = ["CaseRun", "CaseSummary", "Totals", "case_run_from_json", "summarize", "totals"]


@attrs.frozen(kw_only=True)
class CaseRun:
    """One run of one case (repeat ``repeat``), judged: how it ended and every evaluator's grade.

    ``error`` is set when the run could not be made at all (its input did not fit the
    subject's memory, the store failed): such a run fails. A case run passes when no grade
    is a fail; its score is the mean of its grades' values (1.0 or 0.0 by ``passed`` when no
    grade has a value).

    Example:
        >>> run = CaseRun(case="fr", repeat=0, run_id="r1", status="finished",
        ...               grades=(Grade(evaluator="a", passed=True), Grade(evaluator="b", score=0.5)))
        >>> run.passed, run.score
        (True, 0.75)
    """

    case: str
    repeat: int
    run_id: str
    status: str
    grades: tuple[Grade, ...] = ()
    usage: Usage = attrs.field(factory=Usage)
    cost: float = 0.0
    seconds: float = 0.0
    steps: int = 0
    error: str = ""

    @property
    def passed(self) -> bool:
        """No grade failed, and the run was made."""
        return not self.error and not any(g.failed for g in self.grades)

    @property
    def score(self) -> float:
        """The mean of the grades' values (pass or fail when none has one)."""
        values = [v for v in (g.value for g in self.grades) if v is not None]
        return fmean(values) if values and not self.error else float(self.passed)

    def grade(self, evaluator: str) -> Grade | None:
        """The grade the evaluator named ``evaluator`` gave, if any."""
        return next((g for g in self.grades if g.evaluator == evaluator), None)

    def to_json(self) -> dict[str, JsonValue]:
        """The case run as a JSON object (what the run store holds).

        Example:
            >>> CaseRun(case="fr", repeat=0, run_id="r1", status="finished").to_json()["passed"]
            True
        """
        return {
            "case": self.case,
            "repeat": self.repeat,
            "run_id": self.run_id,
            "status": self.status,
            "passed": self.passed,
            "score": self.score,
            "grades": [g.to_json() for g in self.grades],
            "usage": {"input_tokens": self.usage.input_tokens, "output_tokens": self.usage.output_tokens},
            "cost": self.cost,
            "seconds": self.seconds,
            "steps": self.steps,
            "error": self.error,
        }


def _number(data: Mapping[str, JsonValue], key: str) -> float:
    value = data.get(key, 0)
    return float(value) if isinstance(value, int | float) else 0.0


def case_run_from_json(data: Mapping[str, JsonValue]) -> CaseRun:
    """The case run :meth:`CaseRun.to_json` wrote.

    Example:
        >>> run = CaseRun(case="fr", repeat=1, run_id="r1", status="failed", usage=Usage(input_tokens=3))
        >>> case_run_from_json(run.to_json()) == run
        True
    """
    usage = data.get("usage")
    grades = data.get("grades")
    tokens = usage if isinstance(usage, Mapping) else {}
    return CaseRun(
        case=str(data.get("case", "")),
        repeat=int(_number(data, "repeat")),
        run_id=str(data.get("run_id", "")),
        status=str(data.get("status", "")),
        grades=tuple(grade_from_json(g) for g in grades if isinstance(g, Mapping))
        if isinstance(grades, list | tuple)
        else (),
        usage=Usage(
            input_tokens=int(_number(tokens, "input_tokens")),
            output_tokens=int(_number(tokens, "output_tokens")),
        ),
        cost=_number(data, "cost"),
        seconds=_number(data, "seconds"),
        steps=int(_number(data, "steps")),
        error=str(data.get("error", "")),
    )


@attrs.frozen(kw_only=True)
class CaseSummary:
    """One case over its repeats: pass rate, mean score (with intervals), tokens and cost.

    Example:
        >>> runs = [CaseRun(case="fr", repeat=i, run_id=f"r{i}", status="finished") for i in range(3)]
        >>> s = summarize(runs)[0]
        >>> s.case, s.runs, s.pass_rate.value, s.passed
        ('fr', 3, 1.0, True)
    """

    case: str
    runs: int
    pass_rate: Interval
    score: Interval
    scores: tuple[float, ...]
    passes: int
    usage: Usage
    cost: float
    seconds: float
    evaluators: Mapping[str, float]
    """Each evaluator's mean value over the repeats."""

    @property
    def passed(self) -> bool:
        """Every repeat passed."""
        return self.passes == self.runs


def _summary(case: str, runs: list[CaseRun]) -> CaseSummary:
    scores = tuple(r.score for r in runs)
    passes = sum(r.passed for r in runs)
    usage = sum((r.usage for r in runs), Usage())
    values: dict[str, list[float]] = {}
    for r in runs:
        for g in r.grades:
            if g.value is not None:
                values.setdefault(g.evaluator, []).append(g.value)
    return CaseSummary(
        case=case,
        runs=len(runs),
        pass_rate=wilson(passes, len(runs)),
        score=mean_interval(scores),
        scores=scores,
        passes=passes,
        usage=usage,
        cost=sum(r.cost for r in runs),
        seconds=sum(r.seconds for r in runs),
        evaluators={name: fmean(v) for name, v in values.items()},
    )


def summarize(runs: Iterable[CaseRun]) -> tuple[CaseSummary, ...]:
    """One summary per case, in the order cases first appear in ``runs``."""
    grouped: dict[str, list[CaseRun]] = {}
    for run in runs:
        grouped.setdefault(run.case, []).append(run)
    return tuple(_summary(case, sorted(found, key=lambda r: r.repeat)) for case, found in grouped.items())


@attrs.frozen(kw_only=True)
class Totals:
    """A whole experiment: runs, pass rate, mean score (over cases), tokens, cost.

    Example:
        >>> totals([]).runs
        0
    """

    cases: int
    runs: int
    passes: int
    pass_rate: Interval
    score: Interval
    usage: Usage
    cost: float
    seconds: float


def totals(runs: Iterable[CaseRun]) -> Totals:
    """The totals of an experiment's case runs (the score's interval is over the cases' means)."""
    found = list(runs)
    summaries = summarize(found)
    passes = sum(r.passed for r in found)
    return Totals(
        cases=len(summaries),
        runs=len(found),
        passes=passes,
        pass_rate=wilson(passes, len(found)),
        score=mean_interval([s.score.value for s in summaries]),
        usage=sum((r.usage for r in found), Usage()),
        cost=sum(r.cost for r in found),
        seconds=sum(r.seconds for r in found),
    )
