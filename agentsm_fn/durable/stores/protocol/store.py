"""The store interface: what a durable run writes, and the records it reads back.

A stored run is its id, its machine (the ``module:attribute`` name it is found by, and
its fingerprint), its initial memory, its status, and its journal: one row per effect,
``(seq, effect digest, clock readings before it, outcome, clock reading after it)``,
committed before the machine sees the outcome. Memory, trace and state are derived by
replaying the journal; checkpoints (an awaiting snapshot's state, memory and pending
effect, taken now and then) only make loading fast. :class:`RunStore` is the interface;
:class:`~agentsm_fn.durable.stores.sqlite.SqliteStore` the embedded implementation,
:class:`~agentsm_fn.durable.stores.postgres.PostgresStore` the shared one;
:func:`~agentsm_fn.durable.stores.open_store` opens either from a file name or a connection string.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Protocol, runtime_checkable

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import AnswerRefused, RunBusy, RunNotFound, StoreFailure

__all__ = ["Checkpoint", "JournalRow", "NewRun", "RunRecord", "RunStatus", "RunStore", "TraceContexts"]


class RunStatus(enum.Enum):
    """Where a stored run stands."""

    RUNNING = "running"
    """Owned by a process that is running it (or that died: ``recover`` takes it over)."""
    WAITING = "waiting"
    """Waits for the answer to an effect (a human approval): see ``approvals``."""
    READY = "ready"
    """Can go on: its answer arrived, or its process let it go."""
    FINISHED = "finished"
    """Reached a terminal state."""
    FAILED = "failed"
    """The machine failed (``reason`` says how); resumable once the cause is fixed."""

    CANCELLED = "cancelled"
    """Cancelled (``agentsm_fn.durable.cancel``): never resumed; a child's parent got ``ChildCancelled``."""

    @property
    def unfinished(self) -> bool:
        """True for every status but FINISHED and CANCELLED."""
        return self not in (RunStatus.FINISHED, RunStatus.CANCELLED)


@attrs.frozen(kw_only=True)
class NewRun:
    """What a run is created with."""

    run_id: str
    machine: str
    fingerprint: str
    memory: bytes
    created: float
    owner: str
    lease_until: float
    parent: str = ""
    parent_step: int = -1
    start_state: str = ""
    """A fork starts in this state (after ``parent_step`` transitions); other runs in the initial state."""


@attrs.frozen(kw_only=True)
class RunRecord:
    """One stored run as ``list`` and ``show`` see it (no replay needed).

    ``state``, ``steps`` and ``effects`` are as of the run's last stop (a suspension, the
    end, a failure); while it runs, the journal is ahead of them.

    Example:
        >>> RunRecord(run_id="r1", machine="m:M", fingerprint="f", status=RunStatus.WAITING,
        ...           created=0.0, updated=0.0).status.unfinished
        True
    """

    run_id: str
    machine: str
    fingerprint: str
    status: RunStatus
    created: float
    updated: float
    state: str = ""
    steps: int = 0
    effects: int = 0
    reason: str = ""
    owner: str = ""
    lease_until: float = 0.0
    parent: str = ""
    parent_step: int = -1


@attrs.frozen(kw_only=True)
class JournalRow:
    """One effect of a run: its digest, the clock readings before it, and its outcome.

    ``outcome`` is None while the effect is in flight (marked started, not yet
    committed) or waiting for an answer (``waiting``). ``effect`` (the encoded effect)
    is kept only for waiting effects, so that another process can show and answer it.
    """

    seq: int
    digest: bytes
    ticks: tuple[float, ...]
    outcome: bytes | None
    at: float | None
    waiting: bool = False
    summary: str = ""
    effect: bytes | None = None


@attrs.frozen(kw_only=True)
class Checkpoint:
    """A run at rest while awaiting effect ``seq``: enough to continue without replaying before it."""

    seq: int
    state: str
    steps: int
    memory: bytes
    pending: bytes


class RunStore(Protocol):
    """Where durable runs live. Every method returns a value; none raises."""

    def create(self, run: NewRun) -> Result[None, StoreFailure]:
        """Store a new run (status RUNNING, owned by ``run.owner``)."""
        ...

    def get(self, run_id: str) -> Result[RunRecord, RunNotFound | StoreFailure]:
        """The run's record."""
        ...

    def runs(self, unfinished_only: bool = False) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """Every run (or every unfinished one), newest first."""
        ...

    def initial_memory(self, run_id: str) -> Result[bytes, RunNotFound | StoreFailure]:
        """The encoded memory the run started from."""
        ...

    def start(self, run_id: str) -> Result[tuple[str, int], StoreFailure]:
        """The state and transition count a fork starts at (``("", 0)``: the machine's initial state)."""
        ...

    def journal(self, run_id: str, start: int = 0) -> Result[tuple[JournalRow, ...], StoreFailure]:
        """The run's journal rows from ``seq == start`` on, in order."""
        ...

    def tail(self, run_id: str) -> Result[tuple[float, ...], StoreFailure]:
        """Clock readings taken after the last effect, written when the run stopped."""
        ...

    def checkpoint(self, run_id: str) -> Result[Checkpoint | None, StoreFailure]:
        """The latest checkpoint, if any."""
        ...

    def claim(
        self, run_id: str, owner: str, now: float, until: float
    ) -> Result[None, RunBusy | StoreFailure]:
        """Make ``owner`` the run's owner unless another live owner holds it."""
        ...

    def start_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` is about to be performed, if ``owner`` owns the run.

        ``create`` (a run not stored yet) is stored in the same transaction; likewise below.
        ``done`` (the outcome of the effect before, started and performed) completes its started
        row in the same transaction: one transaction per effect. If that row is not there to
        complete (the run was lost), nothing is written and the result is ``RunBusy``.
        """
        ...

    def commit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Commit an effect's outcome: complete its started row, or insert one (if ``owner`` owns the run)."""
        ...

    async def astart_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`start_effect` for async runs (a store may commit several runs' writes together)."""
        ...

    async def acommit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`commit` for async runs (a store may commit several runs' writes together)."""
        ...

    def wait(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` waits for an answer from outside (``row.effect`` says what)."""
        ...

    def answer(
        self, run_id: str, seq: int, outcome: bytes, at: float
    ) -> Result[None, AnswerRefused | StoreFailure]:
        """Commit the answer to a waiting effect, once: a second answer is refused."""
        ...

    def forget(
        self, run_id: str, seq: int, keep_started: bool, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Undo the outcome of entry ``seq`` (the machine did not take it): keep it as started, or drop it.

        Fenced like every write: nothing changes unless ``owner`` owns the run (else RunBusy).
        """
        ...

    def waiting(self) -> Result[tuple[tuple[str, JournalRow], ...], StoreFailure]:
        """Every effect that waits for an answer: (run id, its journal row), oldest run first."""
        ...

    def save_checkpoint(
        self, run_id: str, checkpoint: Checkpoint, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Store a checkpoint (replacing older ones) if ``owner`` owns the run (else RunBusy)."""
        ...

    def stop(
        self,
        run_id: str,
        record: RunRecord,
        tail: tuple[float, ...],
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record where the run stopped (``record``'s status, state, steps, effects, reason); release it.

        ``done``: the last effect's outcome, committed in the same transaction (see :meth:`start_effect`).
        """
        ...

    def close(self) -> None:
        """Let go of the database (its file, or its connections)."""
        ...


@runtime_checkable
class TraceContexts(Protocol):
    """A store that keeps each run's trace context (an opaque mapping of strings, W3C ``traceparent``).

    Optional: a store without these methods runs durable runs the same, untraced across
    processes. The first context saved for a run is kept (later ones are ignored), so
    every process that continues the run links to the trace that started it.
    """

    def save_trace_context(self, run_id: str, carrier: Mapping[str, str]) -> Result[None, StoreFailure]:
        """Keep ``carrier`` as the run's trace context, unless it has one."""
        ...

    def trace_context(self, run_id: str) -> Result[Mapping[str, str], StoreFailure]:
        """The run's trace context (``{}`` if none was saved)."""
        ...
