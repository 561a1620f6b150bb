"""An evaluator that reads a run and performs nothing: a :class:`Check`, built-in or a custom function.

A check is a name and a function of :class:`~agentsm_fn.evals.evidence.Evidence`. A custom
function may return a bool (pass or fail), a number in [0, 1] (a score), a string (a label),
a ``(bool, reason)`` pair or a whole :class:`~agentsm_fn.evals.grades.Grade`; :func:`check`
turns any of them into a grade. A function that raises fails its case, naming the exception:
a broken evaluator never stops an experiment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import attrs

from agentsm_fn.evals.evidence import Evidence
from agentsm_fn.evals.grades import Grade
from agentsm_fn.llm.json import JsonObject

__all__ = ["Check", "CheckResult", "check"]

CheckResult: TypeAlias = "bool | float | str | tuple[bool, str] | Grade"
"""What a custom check may return: pass/fail, a score, a label, pass/fail with a reason, or a grade."""


def graded(name: str, result: CheckResult) -> Grade:
    """``result`` as the grade of the evaluator ``name``.

    Example:
        >>> graded("short", (False, "42 words")).reason
        '42 words'
        >>> graded("polite", 0.5).score, graded("tone", "friendly").label
        (0.5, 'friendly')
    """
    match result:
        case Grade():
            return result if result.evaluator == name else attrs.evolve(result, evaluator=name)
        case bool():
            return Grade(evaluator=name, passed=result)
        case int() | float():
            return Grade(evaluator=name, score=float(result))
        case str():
            return Grade(evaluator=name, label=result)
        case (bool() as passed, str() as reason):
            return Grade(evaluator=name, passed=passed, reason=reason)
    return Grade(evaluator=name, passed=False, reason=f"the evaluator returned {type(result).__name__}")


@attrs.frozen(kw_only=True)
class Check:
    """A named evaluator that reads the recorded run (:class:`Evidence`) and returns a :class:`Grade`.

    Example:
        >>> short = Check(name="short", judge=lambda e: Grade(evaluator="short", passed=len(e.answer) < 9))
        >>> short.grade(Evidence(case="c", run_id="r", status="finished", state="DONE", answer="Paris"))
        Grade(evaluator='short', passed=True, score=None, label=None, reason='')
    """

    name: str
    judge: Callable[[Evidence], Grade] = attrs.field(eq=False)
    spec: JsonObject | None = None
    """How a dataset file writes this check (``{"contains": "Paris"}``); None for a Python-only check."""

    def grade(self, evidence: Evidence) -> Grade:
        """The check's grade of ``evidence``; a raising check fails, naming the exception."""
        try:
            found = self.judge(evidence)
        except Exception as exc:  # a user's evaluator: its bug fails this case, not the experiment
            return Grade(evaluator=self.name, passed=False, reason=f"raised {type(exc).__name__}: {exc}")
        return graded(self.name, found)


def check(name: str, function: Callable[[Evidence], CheckResult]) -> Check:
    """A custom evaluator: ``function`` of the evidence, returning any :data:`CheckResult`.

    Example:
        >>> polite = check("polite", lambda e: "please" in str(e.answer))
        >>> polite.grade(Evidence(case="c", run_id="r", status="finished", state="DONE", answer="no")).passed
        False
    """
    return Check(name=name, judge=lambda evidence: graded(name, function(evidence)))
