"""The snapshot: a run as a value (state, memory, pending effect, trace, journal).

A snapshot is everything needed to continue a run: store it, send it to another
process, resume it later. ``status`` says what it waits for: the next handler
call (READY), the outcome of ``pending`` (AWAITING), or nothing (FINISHED).
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.journal import Journal
from agentsm_fn.core.trace import Trace

__all__ = ["Snapshot", "Status"]

StateT = TypeVar("StateT", bound=enum.Enum)
"""The user's state enum."""
MemoryT = TypeVar("MemoryT")
"""The user's frozen memory type."""


_EMPTY_TRACE = Trace()  # immutable, so one empty value serves every snapshot
_EMPTY_JOURNAL = Journal()


class Status(enum.Enum):
    """What a snapshot is waiting for."""

    READY = "ready"
    """The handler of ``state`` runs next."""
    AWAITING = "awaiting"
    """The outcome of ``pending`` is needed before the handler can continue."""
    FINISHED = "finished"
    """``state`` is terminal; the run is over."""


@attrs.frozen(kw_only=True)
class Snapshot(Generic[StateT, MemoryT]):
    """A run at rest between two steps.

    ``steps`` counts the transitions taken so far.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> Snapshot(state=S.A, memory=0).status
        <Status.READY: 'ready'>
    """

    state: StateT
    memory: MemoryT
    status: Status = Status.READY
    pending: Effect[object] | None = None
    steps: int = 0
    trace: Trace = _EMPTY_TRACE
    journal: Journal = _EMPTY_JOURNAL

    @property
    def finished(self) -> bool:
        """True once a terminal state is reached."""
        return self.status is Status.FINISHED

    @property
    def awaiting(self) -> bool:
        """True while the pending effect's outcome is needed."""
        return self.status is Status.AWAITING
