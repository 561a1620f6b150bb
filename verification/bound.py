"""The step bound: the worst-case number of transitions per budget unit.

When every cycle passes through a budgeted state, the behaviour graph without
budgeted states is acyclic, so between two visits to budgeted states a run takes
at most ``per_budget_unit`` transitions, and before the first visit at most
``before_first_unit``. A run that may spend ``n`` budget units therefore takes at
most ``before_first_unit + n * per_budget_unit`` transitions.
"""

from __future__ import annotations

import attrs

from verification.analysis import Analysis
from verification.paths import peel

__all__ = ["StepBound", "bound_of"]


@attrs.frozen(kw_only=True)
class StepBound:
    """Worst-case transitions: before the first budget unit is spent, and per unit after.

    Example:
        >>> StepBound(per_budget_unit=3, before_first_unit=1).max_transitions(10)
        31
    """

    per_budget_unit: int
    before_first_unit: int
    budgeted: tuple[str, ...] = ()

    def max_transitions(self, budget_units: int) -> int:
        """At most this many transitions in a run that spends ``budget_units`` units."""
        return self.before_first_unit + budget_units * self.per_budget_unit


def _longest(
    flow: dict[str, tuple[tuple[str, str], ...]], order: list[str], budgeted: set[str]
) -> dict[str, int]:
    """Longest walk from each node of an acyclic region (in topological ``order``) to its exits."""
    free = set(order)
    longest: dict[str, int] = {}
    for node in reversed(order):
        longest[node] = max(
            (1 + (0 if t in budgeted or t not in free else longest[t]) for _, t in flow.get(node, ())),
            default=0,
        )
    return longest


def bound_of(analysis: Analysis, budgeted: set[str]) -> StepBound:
    """The step bound of an analysed machine whose unbudgeted graph is acyclic (else ValueError).

    Example:
        >>> from verification.analysis import analyse
        >>> from verification.model import graph_of
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> bound_of(analyse(graph_of(ONE_STEP)), set()).before_first_unit
        1
    """
    flow = analysis.flow
    reachable_budgeted = budgeted & analysis.reachable
    order, cyclic = peel(flow, analysis.sorted_states(analysis.reachable - budgeted))
    if cyclic:
        raise ValueError(f"no step bound: {', '.join(cyclic)} lie on or after an unbudgeted cycle")
    free = set(order)
    longest = _longest(flow, order, budgeted)

    def after(node: str) -> int:
        return max(
            (1 + (0 if t in budgeted or t not in free else longest[t]) for _, t in flow.get(node, ())),
            default=0,
        )

    per_unit = max((after(b) for b in reachable_budgeted), default=0)
    initial = analysis.model.initial
    before = 0 if initial in budgeted else longest.get(initial, 0)
    return StepBound(
        per_budget_unit=per_unit,
        before_first_unit=before,
        budgeted=analysis.sorted_states(reachable_budgeted),
    )
