"""Where a durable run stopped, as every door that runs one gives it back: a value.

:class:`StoredRun` is the run's id and the snapshot it stopped at (finished, or awaiting an
answer); :data:`Ran` is that, or the :data:`~agentsm_fn.durable.errors.DurableError` that kept it
from running.
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

import attrs
from returns.result import Result

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError

__all__ = ["Ran", "StoredRun"]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class StoredRun(Generic[StateT, MemoryT]):
    """Where a durable run stopped: finished, or awaiting an answer (``snapshot.pending``).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> from agentsm_fn.core.engine import begin
        >>> StoredRun(run_id="r1", snapshot=begin(REACT_MACHINE, AgentMemory.new("hi"))).finished
        False
    """

    run_id: str
    snapshot: Snapshot[StateT, MemoryT]

    @property
    def finished(self) -> bool:
        """True once the run reached a terminal state."""
        return self.snapshot.finished


Ran = Result[StoredRun[StateT, MemoryT], DurableError]
"""Where a run stopped, or why it could not run."""
