"""Time travel: a stored run's memory and trace at any step, by replay (no effect is performed).

:func:`replay_stored` folds the run's journal from its initial memory with the engine's
pure ``step`` and ``resume``: each stored clock reading runs one handler, each stored
outcome answers the effect the machine asks for (its digest checked first). Nothing is
performed: no provider, no tool, no clock. Stop at ``step`` to see the run as it was
after that many transitions. :func:`~agentsm_fn.durable.operations.forks.fork` starts a
new stored run from there, with the memory changed as you like (a fixed prompt, another config).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.effects import describe_effect
from agentsm_fn.core.engine import resume, step
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.errors import Diverged, DurableError
from agentsm_fn.durable.running._loading import initial_snapshot
from agentsm_fn.durable.running.digest import content_digest
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.store import JournalRow, RunStore

__all__ = ["Fold", "replay_stored"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def replay_stored(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    until_step: int | None = None,
    seen: Callable[[Snapshot[StateT, MemoryT]], None] | None = None,
) -> Result[Snapshot[StateT, MemoryT], DurableError]:
    """The run as it was after ``until_step`` transitions (default: as far as its journal goes).

    ``seen``, when given, is called with every snapshot the fold passes through (the
    initial one, then one after each handler call and each outcome), so a caller sees
    every step of the run from one replay (the inspector's step control).

    The snapshot is taken before the next handler runs (READY), unless the run finished,
    or waits there for an effect's outcome. Its trace is the run's trace up to there. A
    journal that does not fit the machine is :class:`~agentsm_fn.durable.errors.Diverged`,
    naming the first step that differs.
    """
    return replayed(store, machine, run_id, until_step, seen).map(lambda found: found[0])


def replayed(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    until_step: int | None = None,
    seen: Callable[[Snapshot[StateT, MemoryT]], None] | None = None,
) -> Result[tuple[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT] | None], DurableError]:
    """:func:`replay_stored`, with the failure the replay ended in (None if its last step did not fail)."""
    initial = initial_snapshot(store, machine, run_id)
    if isinstance(initial, Failure):
        return initial
    rows = store.journal(run_id)
    if isinstance(rows, Failure):
        return rows
    tail = store.tail(run_id)
    if isinstance(tail, Failure):
        return tail
    snap = initial.unwrap()[0]
    if seen is not None:
        seen(snap)
    fold = Fold(machine=machine, run_id=run_id, until_step=until_step, seen=seen)
    return fold.replay(snap, None, 0, rows.unwrap(), tail.unwrap())


Settled = Callable[[int, "Snapshot[StateT, MemoryT]", "RunFailed[StateT, MemoryT] | None"], None]
"""Told ``(seq, snapshot, failure)`` once journal row ``seq``'s outcome is taken and a later row exists."""


@attrs.frozen(kw_only=True)
class Fold(Generic[StateT, EventT, MemoryT]):
    """The replay of a run's journal rows, from any snapshot the replay passed (see :func:`replay_stored`).

    ``settled`` is told every point a later replay may start from: a row whose outcome was
    taken and after which the journal has another row. Such a row never changes again (only
    a run's last row is answered, completed or forgotten), so replaying the rows from ``seq
    + 1`` on from that snapshot gives what replaying the whole journal gives.
    """

    machine: Machine[StateT, EventT, MemoryT]
    run_id: str
    until_step: int | None = None
    seen: Callable[[Snapshot[StateT, MemoryT]], None] | None = None
    settled: Settled[StateT, MemoryT] | None = None

    def replay(
        self,
        snap: Snapshot[StateT, MemoryT],
        failed: RunFailed[StateT, MemoryT] | None,
        first: int,
        rows: Sequence[JournalRow],
        tail: tuple[float, ...],
    ) -> Result[tuple[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT] | None], DurableError]:
        """Fold ``rows`` (the journal from seq ``first`` on) and ``tail`` into ``snap``."""
        machine, run_id, limit, seen = self.machine, self.run_id, self.until_step, self.seen

        def reached() -> bool:
            return limit is not None and snap.steps >= limit

        def diverged(seq: int, detail: str) -> Failure[DurableError]:
            return Failure(Diverged(run_id=run_id, seq=seq, step=snap.steps + 1, detail=detail))

        for index, row in enumerate((*rows, None)):
            ticks = tail if row is None else row.ticks
            seq = first + len(rows) if row is None else row.seq
            for at in ticks:
                if reached():
                    return Success((snap, failed))
                if snap.status is not Status.READY:
                    found = "finished" if snap.finished else f"awaiting {_pending(snap)}"
                    return diverged(seq, f"the journal runs a handler where the machine is {found}")
                stepped = step(machine, snap, at)
                snap, failed = _taken(stepped)
                if seen is not None:
                    seen(snap)
            if row is None or row.outcome is None:
                break
            if snap.status is not Status.AWAITING or snap.pending is None:
                return diverged(
                    row.seq, f"the journal has an outcome of {row.summary}; the machine asks for nothing"
                )
            if content_digest(snap.pending) != row.digest:
                return diverged(
                    row.seq, f"the machine asks for {_pending(snap)}; the journal has {row.summary}"
                )
            outcome = from_bytes(row.outcome, object)
            if isinstance(outcome, Failure):
                return Failure(outcome.failure().within(run_id, f"journal[{row.seq}].outcome"))
            resumed = resume(machine, snap, outcome.unwrap(), row.at or 0.0)
            snap, failed = _taken(resumed)
            if seen is not None:
                seen(snap)
            if self.settled is not None and index + 1 < len(rows) and not reached():
                self.settled(row.seq, snap, failed)
        return Success((snap, failed))


def _taken(
    result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]],
) -> tuple[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT] | None]:
    """Where a replayed step left the run, and its failure (the run goes on from its snapshot)."""
    if isinstance(result, Success):
        return result.unwrap(), None
    return result.failure().snapshot, result.failure()


def _pending(snap: Snapshot[StateT, MemoryT]) -> str:
    return describe_effect(snap.pending) if snap.pending is not None else "nothing"
