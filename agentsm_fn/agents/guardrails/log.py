"""Where a machine keeps its guardrail checks (:class:`GuardLog`), and each guardrail's routes.

A guarding state reads and writes a memory's checks only through its :class:`GuardLog`: the
checks so far, a memory with other checks, and which visit of the state it is (the ReAct
agent's step). :class:`GuardRoute` is what the verifier reads of a guarding state: each
guardrail's actions and the events that carry them (SM015).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs

from agentsm_fn.agents.guardrails.values import GuardrailCheck, OnTrip

__all__ = ["HELD", "GuardLog", "GuardRoute"]

M = TypeVar("M")

HELD = "*"
"""The name routes give the guardrails a memory holds (any of them may take any action)."""


@attrs.frozen(kw_only=True)
class GuardLog(Generic[M]):
    """Where a memory keeps its guardrail checks (``checks``, ``with_checks``) and which visit it is on.

    Example:
        >>> log = GuardLog(checks=lambda m: m, with_checks=lambda m, checks: checks, visit=lambda m: 0)
        >>> log.recorded((), GuardrailCheck(guardrail="g", stage="input", at=0))[0].guardrail
        'g'
    """

    checks: Callable[[M], Sequence[GuardrailCheck]]
    with_checks: Callable[[M, tuple[GuardrailCheck, ...]], M]
    visit: Callable[[M], int]

    def recorded(self, memory: M, check: GuardrailCheck) -> M:
        """``memory`` with one more check."""
        return self.with_checks(memory, (*self.checks(memory), check))

    def reviewed(self, memory: M, approved: bool, note: str = "") -> M:
        """``memory`` with a human's decision on its last check (an ``ASK_HUMAN`` trip).

        Example:
            >>> log = GuardLog(checks=lambda m: m, with_checks=lambda m, c: c, visit=lambda m: 0)
            >>> log.reviewed((GuardrailCheck(guardrail="g", stage="input", at=0),), False, "no")[-1].review
            False
        """
        checks = tuple(self.checks(memory))
        if not checks:
            return memory
        return self.with_checks(memory, (*checks[:-1], attrs.evolve(checks[-1], review=approved, note=note)))

    def last_trip(self, memory: M) -> GuardrailCheck | None:
        """The last check, if it tripped (the trip a review, a refusal or a stop is about)."""
        checks = self.checks(memory)
        return checks[-1] if checks and checks[-1].trip is not None else None


@attrs.frozen
class GuardRoute:
    """One guardrail's action and the event that carries it (None: the state has no event for it).

    Example:
        >>> GuardRoute("pii", "output", OnTrip.STOP, None).event is None
        True
    """

    guardrail: str
    stage: str
    on_trip: OnTrip
    event: enum.Enum | None
