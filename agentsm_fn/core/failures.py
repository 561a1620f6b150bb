"""Why a run stopped without reaching a terminal state: failure values, never exceptions.

Every failure is a :class:`RunFailed` holding one *reason* and the last good
snapshot (memory, trace and journal from before the failing step, so nothing is
lost). The reasons::

    Reason
    ├── InvalidTransition   a handler emitted an event with no row for its state
    ├── MissingHandler      a non-terminal state has no handler in this machine
    ├── SafetyCapExceeded   more transitions than the machine's safety cap
    ├── HandlerRaised       a handler raised (a bug); names the exception
    ├── HandlerFaulted      a handler returned Failure(fault)
    ├── BadDecision         a handler returned something that is not a decision
    ├── OutcomeRejected     the shell delivered an outcome of the wrong type
    ├── EffectFailed        the shell could not perform an effect
    ├── WrongStatus         step on an awaiting snapshot, resume on a ready one, ...
    └── ReplayDiverged      the journal does not fit the run being replayed
"""

from __future__ import annotations

import enum
from typing import Generic, TypeAlias, TypeVar

import attrs

from agentsm_fn.core.faults import Fault
from agentsm_fn.core.snapshot import Snapshot, Status

__all__ = [
    "BadDecision",
    "EffectFailed",
    "HandlerFaulted",
    "HandlerRaised",
    "InvalidTransition",
    "MissingHandler",
    "OutcomeRejected",
    "Reason",
    "ReplayDiverged",
    "RunFailed",
    "SafetyCapExceeded",
    "WrongStatus",
]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen
class InvalidTransition:
    """``(state, event)`` has no row in the table.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     DONE = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> InvalidTransition(S.DONE, E.GO).describe()
        'invalid transition: DONE + GO is not in the transition table'
    """

    state: enum.Enum
    event: enum.Enum

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"invalid transition: {self.state.name} + {self.event.name} is not in the transition table"


@attrs.frozen
class MissingHandler:
    """The machine has no handler for a non-terminal ``state``."""

    state: enum.Enum

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"no handler registered for state {self.state.name}"


@attrs.frozen
class SafetyCapExceeded:
    """The run took ``cap`` transitions without reaching a terminal state."""

    state: enum.Enum
    steps: int
    cap: int

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"safety cap exceeded: {self.steps} transitions (cap {self.cap}) in state {self.state.name}"


@attrs.frozen
class HandlerRaised:
    """The handler of ``state`` raised during ``phase`` ("enter" or "resume")."""

    state: enum.Enum
    phase: str
    exception_type: str
    message: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"handler of {self.state.name} raised {self.exception_type} during {self.phase}: {self.message}"
        )


@attrs.frozen
class HandlerFaulted:
    """The handler of ``state`` returned ``Failure(fault)``."""

    state: enum.Enum
    fault: Fault

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"handler of {self.state.name} failed: {self.fault.describe()}"


@attrs.frozen
class BadDecision:
    """The handler of ``state`` returned a value that is not a decision."""

    state: enum.Enum
    returned: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"handler of {self.state.name} returned {self.returned}; expected "
            "Success((event, memory)), Success(Perform(...)) or Failure(fault)"
        )


@attrs.frozen
class OutcomeRejected:
    """The outcome delivered for ``effect`` is not of a type the effect accepts."""

    state: enum.Enum
    effect: str
    outcome_type: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"outcome of type {self.outcome_type} rejected by {self.effect} in state {self.state.name}"


@attrs.frozen
class EffectFailed:
    """The shell could not perform ``effect`` (no performer, or the performer raised)."""

    state: enum.Enum
    effect: str
    message: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"could not perform {self.effect} in state {self.state.name}: {self.message}"


@attrs.frozen
class WrongStatus:
    """An operation needed a snapshot with status ``expected`` but got ``actual``."""

    state: enum.Enum
    expected: Status
    actual: Status

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"snapshot in {self.state.name} is {self.actual.value}, "
            f"but the operation needs it {self.expected.value}"
        )


@attrs.frozen
class ReplayDiverged:
    """Replaying entry ``index`` of the journal did not fit the run."""

    index: int
    message: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"replay diverged at journal entry {self.index}: {self.message}"


Reason: TypeAlias = (
    InvalidTransition
    | MissingHandler
    | SafetyCapExceeded
    | HandlerRaised
    | HandlerFaulted
    | BadDecision
    | OutcomeRejected
    | EffectFailed
    | WrongStatus
    | ReplayDiverged
)
"""Every reason a run can fail."""


@attrs.frozen
class RunFailed(Generic[StateT, MemoryT]):
    """A failed run: the reason, and the last good snapshot (nothing is lost)."""

    reason: Reason
    snapshot: Snapshot[StateT, MemoryT]

    def describe(self) -> str:
        """One line for logs and reports."""
        return self.reason.describe()
