"""What a store keeps of child runs: each child's parent, the parent's effect, its place, its outcome.

A parent's :class:`~agentsm_fn.teams.ChildRun` or :class:`~agentsm_fn.teams.Children` effect
(entry ``seq`` of its journal) is one group of children: one row each (:class:`NewChild`),
written before any child is started, so a parent that crashes and asks again finds the same
children. A child is started when its run is stored (queued); its row keeps its start memory
until then, and its outcome (the encoded :data:`~agentsm_fn.teams.ChildOutcome`) once it ended,
written once (:meth:`ChildStore.end_child` is a conditional write). Both stores keep them in
the ``children`` table, created when a store is opened (an older store gains it).

A parent that starts children stores their rows, the first children's runs, its wait and its
checkpoint, and stops WAITING, in one transaction (:meth:`ChildStore.wait_on_children`): a crash
leaves all of it or none, and no child can end before its parent's wait is stored. A child that
ends stores its stop, its outcome and its parent's answer in one transaction too
(:meth:`ChildStore.stop_child`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus

__all__ = ["ChildRecord", "ChildStop", "ChildStore", "ChildrenWait", "NewChild"]


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


@attrs.frozen(kw_only=True)
class ChildrenWait:
    """What a parent stores, in one transaction, as it stops to wait on the children it starts.

    ``wait``: its waiting journal entry (``started``: that entry was stored as started, in flight
    when an earlier process died; it is marked waiting); ``children`` their rows and ``start`` the
    runs queued at once (only if the group is new); ``checkpoint`` and ``record`` where it stopped
    (WAITING); ``create`` the parent run itself, if it was not stored yet.

    Example:
        >>> from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
        >>> row = JournalRow(seq=0, digest=b"", ticks=(), outcome=None, at=None, waiting=True)
        >>> point = Checkpoint(seq=0, state="ASK", steps=0, memory=b"", pending=b"")
        >>> record = RunRecord(run_id="p", machine="m:M", fingerprint="f", status=RunStatus.WAITING,
        ...                    created=0.0, updated=0.0)
        >>> ChildrenWait(wait=row, children=(), checkpoint=point, record=record).started
        False
    """

    wait: JournalRow
    children: tuple[NewChild, ...]
    checkpoint: Checkpoint
    record: RunRecord
    start: tuple[NewRun, ...] = ()
    started: bool = False
    create: NewRun | None = None
    taken: bool = False
    """The one run of ``start`` is stored RUNNING, owned by its ``owner`` (who runs it at once)."""


@attrs.frozen(kw_only=True)
class ChildStop:
    """How a child run ended, stored with its outcome (and its parent's answer) in one transaction.

    ``record`` is where it stopped (FINISHED or FAILED), ``tail`` its clock readings since its last
    write, ``done`` its last effect's outcome (completing that effect's started row), ``outcome``
    the encoded :data:`~agentsm_fn.teams.ChildOutcome`. ``answer`` (parent, seq): the waiting
    effect the outcome answers (the one child of a ``ChildRun``; None in a fan-out). The answered
    parent is made READY, or with ``take_until`` taken by the child's owner until then (RUNNING:
    the process that ran the child goes on with its parent).

    Example:
        >>> from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
        >>> record = RunRecord(run_id="p.c0", machine="m:C", fingerprint="f", status=RunStatus.FINISHED,
        ...                    created=0.0, updated=0.0)
        >>> ChildStop(record=record, tail=(), outcome=b"").answer is None
        True
    """

    record: RunRecord
    tail: tuple[float, ...]
    outcome: bytes
    done: JournalRow | None = None
    answer: tuple[str, int] | None = None
    take_until: float = 0.0


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

    def wait_on_children(
        self, run_id: str, owner: str, wait: ChildrenWait
    ) -> Result[int, RunBusy | StoreFailure]:
        """Store ``wait`` in one transaction, fenced by ownership (RunBusy: nothing written); rows new.

        The children's rows stored already are kept; ``wait.start`` is queued only if all were new.
        """
        ...

    def stop_child(self, run_id: str, owner: str, stop: ChildStop) -> Result[bool, RunBusy | StoreFailure]:
        """Store how child ``run_id`` ended (``ChildStop``), fenced; whether it wrote its outcome.

        RunBusy: this owner no longer holds the run, and nothing was written. The outcome is written
        once (a child that has one keeps it) and only then answers the parent.
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

    def first_unstarted(
        self, parent: str, seq: int, after: int = -1
    ) -> Result[ChildRecord | None, StoreFailure]:
        """The child of ``parent``'s effect ``seq`` of lowest index above ``after`` not started nor ended.

        None if there is none. Children start in index order, so a child that ends may pass its own
        index as ``after``: the rows below it need no reading.
        """
        ...

    def end_child(
        self, run_id: str, outcome: bytes, answer: tuple[str, int, float] | None = None
    ) -> Result[bool, StoreFailure]:
        """Store the child's outcome unless it has one; whether this wrote it (and answered ``answer``)."""
        ...

    def cancel_run(self, run_id: str, at: float) -> Result[bool, StoreFailure]:
        """Mark an unfinished run CANCELLED and let go of it (its owner's next write is refused)."""
        ...
