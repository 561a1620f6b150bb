"""Two experiments compared case by case: which cases regressed, improved, or stayed the same.

A case's change is the difference of its mean scores (candidate minus baseline). Within
``tolerance`` it is unchanged. Beyond it, with repeats on both sides, it counts only when it
is significant (Welch's test on the scores, or Fisher's exact test on the pass counts, below
``alpha``); a change the repeats cannot tell from noise is ``unchanged`` with its p-value
shown. With one run a side there is nothing to test: any change beyond ``tolerance`` counts.
A case only one side ran is ``added`` or ``removed``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

import attrs

from agentsm_fn.evals.results import CaseRun, CaseSummary, summarize
from agentsm_fn.evals.stats import fisher_p, welch_p

__all__ = ["CaseChange", "Comparison", "Trend", "compare"]


class Trend(enum.Enum):
    """What happened to a case between two experiments."""

    REGRESSED = "regressed"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"
    ADDED = "added"
    REMOVED = "removed"


@attrs.frozen(kw_only=True)
class CaseChange:
    """One case in both experiments: its change, the score delta and, with repeats, the p-value."""

    case: str
    change: Trend
    baseline: CaseSummary | None
    candidate: CaseSummary | None
    delta: float = 0.0
    p_value: float | None = None


@attrs.frozen(kw_only=True)
class Comparison:
    """Every case's change from ``baseline`` to ``candidate`` (experiment names).

    Example:
        >>> runs = lambda score: [CaseRun(case="fr", repeat=0, run_id="r", status="finished",
        ...                               grades=(Grade(evaluator="judge", score=score),))]
        >>> from agentsm_fn.evals.grades import Grade
        >>> compare("v1", runs(0.9), "v2", runs(0.4)).regressed[0].delta
        -0.5
    """

    baseline: str
    candidate: str
    cases: tuple[CaseChange, ...]

    def having(self, change: Trend) -> tuple[CaseChange, ...]:
        """The cases with ``change``."""
        return tuple(c for c in self.cases if c.change is change)

    @property
    def regressed(self) -> tuple[CaseChange, ...]:
        """The cases that got worse."""
        return self.having(Trend.REGRESSED)

    @property
    def improved(self) -> tuple[CaseChange, ...]:
        """The cases that got better."""
        return self.having(Trend.IMPROVED)


def _p_value(old: CaseSummary, new: CaseSummary) -> float | None:
    if old.runs < 2 or new.runs < 2:
        return None
    tested = [
        p
        for p in (welch_p(old.scores, new.scores), fisher_p(old.passes, old.runs, new.passes, new.runs))
        if p is not None
    ]
    return min(tested) if tested else None


def _change(old: CaseSummary, new: CaseSummary, tolerance: float, alpha: float) -> CaseChange:
    delta = new.score.value - old.score.value
    p = _p_value(old, new)
    if abs(delta) <= tolerance or (p is not None and p >= alpha):
        change = Trend.UNCHANGED
    else:
        change = Trend.IMPROVED if delta > 0 else Trend.REGRESSED
    return CaseChange(case=old.case, change=change, baseline=old, candidate=new, delta=delta, p_value=p)


def compare(
    baseline: str,
    baseline_runs: Iterable[CaseRun],
    candidate: str,
    candidate_runs: Iterable[CaseRun],
    *,
    tolerance: float = 1e-9,
    alpha: float = 0.05,
) -> Comparison:
    """Compare two experiments' case runs case by case (the baseline's cases first, then new ones)."""
    old = {s.case: s for s in summarize(baseline_runs)}
    new = {s.case: s for s in summarize(candidate_runs)}
    changes: list[CaseChange] = []
    for case, summary in old.items():
        other = new.get(case)
        if other is None:
            changes.append(CaseChange(case=case, change=Trend.REMOVED, baseline=summary, candidate=None))
        else:
            changes.append(_change(summary, other, tolerance, alpha))
    changes += [
        CaseChange(case=case, change=Trend.ADDED, baseline=None, candidate=summary)
        for case, summary in new.items()
        if case not in old
    ]
    return Comparison(baseline=baseline, candidate=candidate, cases=tuple(changes))
