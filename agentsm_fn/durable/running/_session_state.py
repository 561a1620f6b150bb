"""The state of one durable run in progress and how it commits outcomes to the journal.

:class:`~agentsm_fn.durable.running.session.Session` (the journal cursor that answers a performer
from the journal or lets it perform) builds on :class:`SessionState`: the clock that replays
stored readings, and the writes of outcomes, waits and started rows (see
:mod:`agentsm_fn.durable.running.session`).
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable
from typing import Final

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core import SUSPEND
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.durable.errors import Diverged, DurableError, RunBusy, StoreFailure
from agentsm_fn.durable.running import _contract
from agentsm_fn.durable.stores.codec import to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import JournalRow, NewRun, RunStore
from agentsm_fn.shell.clock import Clock

__all__ = ["MISSING", "HeldChildren", "Pause", "SessionState"]


class Pause(enum.Enum):
    """Why a wrapped performer paused the run (returned ``SUSPEND``)."""

    CHECKPOINT = "checkpoint"
    """The outcome is committed; take a checkpoint of the awaiting snapshot, then go on."""
    WAIT = "wait"
    """The effect waits for an answer from outside (its performer suspended the run)."""
    ERROR = "error"
    """:attr:`Session.error` says why the run must stop."""


class _Stop(Exception):
    """Raised by the session's clock when the journal and the machine disagree."""


MISSING: Final = object()
"""Marks an effect to perform now (no outcome from the journal)."""


@attrs.frozen(kw_only=True)
class HeldChildren:
    """The children a run's effect starts, held to be stored with its wait (``ChildStore.wait_on_children``).

    ``rows`` their rows, ``start`` the runs queued at once, ``memories`` their start memories (in
    hand: the one child of a ``ChildRun`` may run here from it); ``wait`` the run's waiting entry and
    ``started`` whether it was stored as started, once the session recorded the wait.
    """

    store: ChildStore
    rows: tuple[NewChild, ...]
    start: tuple[NewRun, ...]
    memories: tuple[object, ...]
    wait: JournalRow | None = None
    started: bool = False


class SessionState:
    """The journal state of one run in one process: its clock and its writes (see the module docstring)."""

    def __init__(
        self,
        *,
        run_id: str,
        store: RunStore,
        owner: str,
        clock: Clock,
        rows: tuple[JournalRow, ...],
        tail: tuple[float, ...],
        first_seq: int,
        skip_first_ticks: bool,
        checkpoint_after: int,
        checkpoint_bytes: int,
        create: NewRun | None = None,
    ) -> None:
        self.run_id = run_id
        self.store = store
        self.owner = owner
        self.real_clock = clock
        self.rows: deque[JournalRow] = deque(rows)
        self.tail: deque[float] = deque(tail)
        self.seq = first_seq
        self.replaying: deque[float] = deque(rows[0].ticks if rows and not skip_first_ticks else ())
        self.buffer: list[float] = []
        self.primed: float | None = None
        self.redeliver: tuple[int, object, float] | None = None
        self.error: DurableError | None = None
        self.pause: Pause | None = None
        self.performed = 0
        self.since_checkpoint = 0
        self.bytes_since_checkpoint = 0
        self.checkpoint_after = checkpoint_after
        self.checkpoint_bytes = checkpoint_bytes
        self.create = create
        """The run itself, until its first write stores it (in the same transaction)."""
        self.resumed = False
        """Whether the run was stored before this process took it (only such a run can be a child run)."""
        self.first_perform: Callable[[], None] | None = None
        """Called once, as the first effect this process performs for the run starts (its trace context)."""
        self.children: HeldChildren | None = None
        """The children the effect being performed starts: stored with the run's wait, in one transaction."""
        self.take_child = False
        """Whether this process runs the children its run waits on (inline): the one child of a
        ``ChildRun`` is then stored as this process's, to run from its memory in hand."""
        self.taken_child: tuple[ChildRecord, object] | None = None
        """The child stored as this process's as the run stopped to wait on it, and its start memory."""
        self.child: ChildRecord | None = None
        """The run's row as a child, if it is one (read once when the run is loaded, or in hand)."""
        self.last: tuple[int, object] | None = None
        """The last outcome handed to the fold, with its entry number."""
        self.held: JournalRow | None = None
        """The outcome of the last effect that is not retry-safe, handed to the fold, not yet committed.

        Its started row is in the journal; the outcome is written with the next write of the run
        (the next started row, or where the run stops), before anything else is performed: between
        the two only the machine's pure code runs. One transaction per effect instead of two.
        """

    # --- the clock ----------------------------------------------------------------------------

    def clock(self) -> float:
        """The next stored reading, or a real one (kept for the next commit)."""
        primed = self.primed
        if primed is not None:
            self.primed = None
            return primed
        if self.replaying:
            return self.replaying.popleft()
        if self.rows:
            row = self.rows[0]
            detail = (
                f"the machine runs more handlers before {row.summary or 'effect'} than the journal recorded"
            )
            self._fail(Diverged(run_id=self.run_id, seq=row.seq, step=-1, detail=detail))
            raise _Stop(detail)
        reading = self.tail.popleft() if self.tail else self.real_clock()
        self.buffer.append(reading)
        return reading

    # --- writing ----------------------------------------------------------------------------

    def _started(self, written: Result[None, RunBusy | StoreFailure]) -> bool:
        """Note that the started row was written; True if it was not (the run must stop)."""
        if self._refused(written):
            return True
        self.create = None
        self.buffer.clear()
        return False

    def _refused(self, written: Result[None, RunBusy | StoreFailure]) -> bool:
        """True (and the run must stop) if a write failed."""
        if isinstance(written, Failure):
            self._fail(written.failure())
            return True
        return False

    def _unheld(self) -> JournalRow | None:
        """The held outcome, to write now (see :attr:`held`)."""
        held, self.held = self.held, None
        return held

    def _holds(self, effect: Effect[object], started: bool, row: JournalRow) -> bool:
        """Hold ``row`` (the outcome of a started effect that is not retry-safe) for the next write."""
        if started and not _contract.retry_safe(effect):
            self.held = row
            return True
        return False

    def _after(
        self, effect: Effect[object], seq: int, digest: bytes, started: bool, outcome: object
    ) -> object:
        """Commit ``outcome`` (or record a wait) and hand it to the fold."""
        if outcome is SUSPEND:
            return self._wait(effect, seq, digest, started)
        prepared = self._prepare(effect, seq, digest, started, outcome)
        if not isinstance(prepared, JournalRow):
            return prepared
        if self._holds(effect, started, prepared):
            return self._committed(prepared, started, outcome, Success(None))
        create = None if started else self.create
        return self._committed(
            prepared, started, outcome, self.store.commit(self.run_id, prepared, self.owner, started, create)
        )

    def _prepare(
        self, effect: Effect[object], seq: int, digest: bytes, started: bool, outcome: object
    ) -> JournalRow | object:
        """The journal row of ``outcome``, or SUSPEND if it cannot be encoded (the run stops)."""
        encoded = to_bytes(outcome)
        if isinstance(encoded, Failure):
            return self._stop(encoded.failure().within(self.run_id, f"journal[{seq}].outcome"))[0]
        return JournalRow(
            seq=seq,
            digest=digest,
            ticks=() if started else tuple(self.buffer),
            outcome=encoded.unwrap(),
            at=self.real_clock(),
            summary=describe_effect(effect)[:200],
        )

    def _committed(
        self, row: JournalRow, started: bool, outcome: object, written: Result[None, RunBusy | StoreFailure]
    ) -> object:
        """After the commit: the outcome for the fold (or SUSPEND: stop, or take a checkpoint)."""
        if isinstance(written, Failure):
            return self._stop(written.failure())[0]
        self.create = None
        if not started:
            self.buffer.clear()
        at = row.at if row.at is not None else 0.0
        self.performed += 1
        self.since_checkpoint += 1
        self.bytes_since_checkpoint += len(row.outcome or b"")
        if (
            self.since_checkpoint >= self.checkpoint_after
            and self.bytes_since_checkpoint >= self.checkpoint_bytes
        ):
            self.redeliver = (row.seq, outcome, at)
            self.pause = Pause.CHECKPOINT
            return SUSPEND
        self._delivered(at)
        self.last = (row.seq, outcome)
        return outcome

    def _wait(self, effect: Effect[object], seq: int, digest: bytes, started: bool) -> object:
        encoded = to_bytes(effect)
        if isinstance(encoded, Failure):
            return self._stop(encoded.failure().within(self.run_id, f"journal[{seq}].effect"))[0]
        row = JournalRow(
            seq=seq,
            digest=digest,
            ticks=() if started else tuple(self.buffer),
            outcome=None,
            at=None,
            waiting=True,
            summary=describe_effect(effect)[:200],
            effect=encoded.unwrap(),
        )
        if self.children is not None:  # stored with the children and where the run stops: one transaction
            self.children = attrs.evolve(self.children, wait=row, started=started)
            self.pause = Pause.WAIT
            if not started:
                self.buffer.clear()
            return SUSPEND
        written = self.store.wait(self.run_id, row, self.owner, started, None if started else self.create)
        if isinstance(written, Failure):
            return self._stop(written.failure())[0]
        self.create = None
        if not started:
            self.buffer.clear()
        self.pause = Pause.WAIT
        return SUSPEND

    def _raised(
        self, effect: Effect[object], seq: int, digest: bytes, started: bool, exc: Exception
    ) -> object:
        """Commit the failure value that stands for the performer's exception, and hand it to the fold."""
        return self._after(effect, seq, digest, started, _contract.raised(effect, exc))

    def _delivered(self, at: float) -> None:
        self.seq += 1
        self.primed = at

    def _stop(self, error: DurableError) -> tuple[object, int, bytes, bool]:
        self._fail(error)
        return SUSPEND, 0, b"", False

    def _fail(self, error: DurableError) -> None:
        if self.error is None:
            self.error = error
        self.pause = Pause.ERROR

    def hold_children(
        self,
        store: ChildStore,
        rows: tuple[NewChild, ...],
        start: tuple[NewRun, ...],
        memories: tuple[object, ...],
    ) -> None:
        """Hold the children the effect being performed starts, to store them with the run's wait."""
        self.children = HeldChildren(store=store, rows=rows, start=start, memories=memories)

    def checkpointed(self) -> None:
        """Note that a checkpoint was just taken."""
        self.since_checkpoint = 0
        self.bytes_since_checkpoint = 0
        self.pause = None
