"""What an evaluator says about one run: a :class:`Grade` (pass/fail, a score or a label, and why).

A grade is a plain value with a JSON form (:meth:`Grade.to_json`, :func:`grade_from_json`), so
an experiment stores it next to the run it judged and any reader (a report, the inspector)
reads it back without running anything.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import attrs

from agentsm_fn.llm.json import JsonValue

__all__ = ["Grade", "grade_from_json"]


def _score(value: float | None) -> float | None:
    if value is None:
        return None
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ValueError(f"a score is a number from 0 to 1, not {value!r}")
    return float(value)


@attrs.frozen(kw_only=True)
class Grade:
    """One evaluator's judgement of one run: ``passed``, a ``score`` in [0, 1] or a ``label``, and why.

    An evaluator gives at least one of the three. :attr:`value` is the number a summary
    averages: the score, else 1.0 for a pass and 0.0 for a fail (None for a label alone).

    Example:
        >>> Grade(evaluator="contains 'Paris'", passed=True, reason="found").value
        1.0
        >>> Grade(evaluator="judge", score=0.75, label="good").value
        0.75
    """

    evaluator: str
    passed: bool | None = None
    score: float | None = attrs.field(default=None, converter=_score)
    label: str | None = None
    reason: str = ""

    @property
    def value(self) -> float | None:
        """The score, else 1.0 or 0.0 for pass or fail, else None (a label alone)."""
        if self.score is not None:
            return self.score
        return None if self.passed is None else float(self.passed)

    @property
    def failed(self) -> bool:
        """True only for an explicit fail."""
        return self.passed is False

    def to_json(self) -> dict[str, JsonValue]:
        """The grade as a JSON object (the fields that are set).

        Example:
            >>> Grade(evaluator="no failure", passed=True).to_json()
            {'evaluator': 'no failure', 'passed': True, 'reason': ''}
        """
        shown: dict[str, JsonValue] = {"evaluator": self.evaluator}
        if self.passed is not None:
            shown["passed"] = self.passed
        if self.score is not None:
            shown["score"] = self.score
        if self.label is not None:
            shown["label"] = self.label
        shown["reason"] = self.reason
        return shown


def grade_from_json(data: Mapping[str, JsonValue]) -> Grade:
    """The grade :meth:`Grade.to_json` wrote.

    Example:
        >>> grade_from_json({"evaluator": "judge", "score": 0.5, "reason": "half"}).score
        0.5
    """
    passed, score, label = data.get("passed"), data.get("score"), data.get("label")
    return Grade(
        evaluator=str(data.get("evaluator", "")),
        passed=passed if isinstance(passed, bool) else None,
        score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None,
        label=label if isinstance(label, str) else None,
        reason=str(data.get("reason", "")),
    )
