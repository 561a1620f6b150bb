"""What a store keeps of child runs: each child's parent, the parent's effect, its place, its outcome.

A parent's :class:`~agentsm_fn.teams.ChildRun` or :class:`~agentsm_fn.teams.Children` effect
(entry ``seq`` of its journal) is one group of children: one row each (:class:`NewChild`),
written before any child is started, so a parent that crashes and asks again finds the same
children. A child is started when its run is stored (queued); its row keeps its start memory
until then, and its outcome (the encoded :data:`~agentsm_fn.teams.ChildOutcome`) once it ended,
written once (:meth:`ChildStore.end_child` is a conditional write). Both stores keep them in
the ``children`` table, created when a store is opened (an older store gains it).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStatus

__all__ = ["ChildRecord", "ChildStore", "NewChild"]


@attrs.frozen(kw_only=True)
class NewChild:
    """One child of a parent's effect, as it is first stored.

    ``index`` is its place in a fan-out (-1: the one child of a ``ChildRun``); ``size`` how many
    children the effect has; ``limit`` how many run at once; ``cancel_rest`` the fan-out's policy.

    Example:
        >>> NewChild(run_id="p.c2.0", parent="p", seq=2, index=0, size=3, program="app:C", memory=b"").limit
        1
    """

    run_id: str
    parent: str
    seq: int
    index: int
    size: int
    program: str
    memory: bytes
    limit: int = 1
    cancel_rest: bool = False


@attrs.frozen(kw_only=True)
class ChildRecord:
    """One stored child: its row, and where its run stands (``status`` None: not started yet).

    Example:
        >>> ChildRecord(run_id="p.c2", parent="p", seq=2, index=-1, size=1, program="app:C",
        ...             memory=b"", limit=1, cancel_rest=False, outcome=None, status=None).started
        False
    """

    run_id: str
    parent: str
    seq: int
    index: int
    size: int
    program: str
    memory: bytes
    limit: int
    cancel_rest: bool
    outcome: bytes | None
    status: RunStatus | None
    fingerprint: str = ""

    @property
    def started(self) -> bool:
        """Whether the child's run is stored."""
        return self.status is not None

    @property
    def ended(self) -> bool:
        """Whether its outcome is stored."""
        return self.outcome is not None


@runtime_checkable
class ChildStore(RunQueue, Protocol):
    """A queue store that keeps child runs (both stores do)."""

    def add_children(
        self, children: tuple[NewChild, ...], start: tuple[NewRun, ...] = ()
    ) -> Result[int, StoreFailure]:
        """Store a group of children's rows in one transaction (rows stored are kept); how many are new.

        A new group's children of ``start`` are queued in the same transaction.
        """
        ...

    def children_of(
        self, parent: str, seq: int | None = None
    ) -> Result[tuple[ChildRecord, ...], StoreFailure]:
        """The children of ``parent`` (of its effect ``seq``, if given), by seq and index."""
        ...

    def child(self, run_id: str) -> Result[ChildRecord | None, StoreFailure]:
        """The child row of run ``run_id``; None if that run is nobody's child."""
        ...

    def unended(self, parent: str, seq: int) -> Result[int, StoreFailure]:
        """How many children of ``parent``'s effect ``seq`` have no outcome yet."""
        ...

    def end_child(
        self, run_id: str, outcome: bytes, answer: tuple[str, int, float] | None = None
    ) -> Result[bool, StoreFailure]:
        """Store the child's outcome unless it has one; whether this wrote it (and answered ``answer``)."""
        ...

    def cancel_run(self, run_id: str, at: float) -> Result[bool, StoreFailure]:
        """Mark an unfinished run CANCELLED and let go of it (its owner's next write is refused)."""
        ...
