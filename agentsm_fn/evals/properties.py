"""Run properties as evaluators: the kit's automata (``never``, ``only_after``, ``responds``, ``at_most``).

:func:`keeps` judges a :class:`~verification.kit.RunProperty` on a case's recorded run: the
kit's own monitor is begun from the run's start memory, advanced over every step the stored
journal replays to (the same :class:`~verification.kit.Transition` values the kit's generated
and explored runs give it) and, when the run finished, asked whether an obligation is still
open. So "no refund before approval" is an eval of every case, judged by the same code that
checks it over generated runs.
"""

from __future__ import annotations

import enum
from typing import Any, TypeVar, cast

from agentsm_fn.evals.check import Check
from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.grades import Grade
from verification.kit.run_properties import RunProperty, advance_all, begin_all, end_all

__all__ = ["keeps"]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def keeps(prop: RunProperty[StateT, MemoryT], *, name: str | None = None) -> Check:
    """An evaluator that passes when the recorded run keeps ``prop``; its reason names the step that broke it.

    Example:
        >>> from verification.kit import never, took
        >>> from verification.kit._demo import E
        >>> keeps(never(took(E.ZERO))).name
        'ZERO never happens'
    """
    label = name or prop.name
    properties = (cast(RunProperty[Any, Any], prop),)  # judged on steps replayed from any machine

    def judge(e: Evidence) -> Grade:
        steps: tuple[Any, ...] = e.transitions()
        start = steps[0].before if steps else e.memory
        monitors = begin_all(properties, start)
        for step in steps:
            monitors, problem = advance_all(properties, monitors, step)
            if problem is not None:
                return Grade(evaluator=label, passed=False, reason=problem)
        ended = end_all(properties, monitors) if e.status in ("finished", "failed") else None
        return Grade(evaluator=label, passed=ended is None, reason=ended or f"held over {len(steps)} steps")

    return Check(name=label, judge=judge)
