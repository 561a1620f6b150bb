"""What an effect's failure is: an outcome value the shell delivers in place of the real outcome.

When the world cannot give an effect its outcome, the shell (or the durable runner,
or a Temporal activity wrapper) hands the fold an :class:`EffectFailure` instead:

* ``RAISED``: the performer raised (``detail`` is ``"<ExcType>: <message>"``);
* ``TIMED_OUT``: the performer ran past the timeout it was registered with;
* ``REJECTED``: the delivered outcome is not of a type the effect accepts (made by
  the engine itself, from the outcome it was given);
* ``UNKNOWN``: the process died while the effect was in flight, and its type is not
  retry-safe, so nobody knows whether it happened (delivered on recovery).

The engine then decides, once, in this order (see docs/effect-failures.md):

1. the effect accepts ``EffectFailure`` (it lists it in ``outcome_types``): its
   handler's ``receive`` gets the failure and decides;
2. else the state's handler declares ``failure_event=E``: the engine emits ``E``
   with the memory the handler asked to resume with, and routes it through the table;
3. else the run ends with ``RunFailed(EffectFailed(...))`` and the AWAITING snapshot
   (the failure is not journaled, so the run resumes once the cause is fixed).

A failure that is handled (1 or 2) is journaled like any outcome, so replay
reproduces it with no IO.
"""

from __future__ import annotations

import enum
from typing import Final

import attrs

__all__ = ["EffectFailure", "FailureKind"]

_DETAIL_LIMIT: Final = 500


class FailureKind(enum.Enum):
    """Why an effect has no outcome.

    Example:
        >>> FailureKind.TIMED_OUT.value
        'timed_out'
    """

    RAISED = "raised"
    """The performer raised."""
    TIMED_OUT = "timed_out"
    """The performer ran past its timeout."""
    REJECTED = "rejected"
    """The outcome delivered was not of a type the effect accepts (made by the engine)."""
    UNKNOWN = "unknown"
    """The effect was in flight when the process died and is not retry-safe."""


_SAYS: Final = {
    FailureKind.RAISED: "performer raised",
    FailureKind.TIMED_OUT: "performer timed out",
    FailureKind.REJECTED: "outcome rejected",
    FailureKind.UNKNOWN: "outcome unknown",
}


def _clip(text: str) -> str:
    return text[:_DETAIL_LIMIT]


@attrs.frozen(kw_only=True)
class EffectFailure:
    """An effect's failure, delivered as its outcome: the kind, the effect's summary, a detail.

    ``detail`` is a short human-readable text (an exception's type and message, a
    timeout, ...); like every effect summary it must never hold a secret.

    Example:
        >>> failure = EffectFailure.raised("Charge", ConnectionError("card network down"))
        >>> failure.kind.name, failure.detail
        ('RAISED', 'ConnectionError: card network down')
        >>> failure.describe()
        'Charge: performer raised ConnectionError: card network down'
    """

    kind: FailureKind
    effect: str
    detail: str = attrs.field(default="", converter=_clip)

    @classmethod
    def raised(cls, effect: str, exc: BaseException) -> EffectFailure:
        """The failure of a performer that raised ``exc`` while performing ``effect``.

        Example:
            >>> EffectFailure.raised("Ask", ValueError("boom")).detail
            'ValueError: boom'
        """
        return cls(kind=FailureKind.RAISED, effect=effect, detail=f"{type(exc).__qualname__}: {exc}")

    @classmethod
    def timed_out(cls, effect: str, seconds: float) -> EffectFailure:
        """The failure of a performer that ran longer than ``seconds``.

        Example:
            >>> EffectFailure.timed_out("Ask", 2.5).detail
            'no outcome within 2.5s'
        """
        return cls(kind=FailureKind.TIMED_OUT, effect=effect, detail=f"no outcome within {seconds:g}s")

    @classmethod
    def unknown(cls, effect: str, detail: str = "in flight when the run stopped") -> EffectFailure:
        """The outcome of an effect that was in flight at a crash and may or may not have happened.

        Example:
            >>> EffectFailure.unknown("Charge").kind.name
            'UNKNOWN'
        """
        return cls(kind=FailureKind.UNKNOWN, effect=effect, detail=detail)

    def problem(self) -> str:
        """What went wrong and the detail, without the effect's name.

        Example:
            >>> EffectFailure.timed_out("Ask", 3).problem()
            'performer timed out: no outcome within 3s'
        """
        says = _SAYS[self.kind]
        if not self.detail:
            return says
        return f"{says} {self.detail}" if self.kind is FailureKind.RAISED else f"{says}: {self.detail}"

    def describe(self) -> str:
        """One line: the effect, what went wrong, and the detail.

        Example:
            >>> EffectFailure(kind=FailureKind.UNKNOWN, effect="Charge", detail="crash").describe()
            'Charge: outcome unknown: crash'
        """
        return f"{self.effect}: {self.problem()}"
