"""Time travel: a stored run's memory and trace at any step, by replay (no effect is performed).

:func:`replay_stored` folds the run's journal from its initial memory with the engine's
pure ``step`` and ``resume``: each stored clock reading runs one handler, each stored
outcome answers the effect the machine asks for (its digest checked first). Nothing is
performed: no provider, no tool, no clock. Stop at ``step`` to see the run as it was
after that many transitions. :func:`fork` starts a new stored run from there, with
the memory changed as you like (a fixed prompt, another config).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.core.effects import describe_effect
from agentsm_fn.core.engine import begin, resume, step
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.codec import from_bytes
from agentsm_fn.durable.digest import content_digest
from agentsm_fn.durable.errors import Diverged, DurableError
from agentsm_fn.durable.store import RunStore

__all__ = ["replay_stored"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def replay_stored(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    until_step: int | None = None,
) -> Result[Snapshot[StateT, MemoryT], DurableError]:
    """The run's snapshot after ``until_step`` transitions (default: as far as the journal goes).

    The snapshot's trace is the run's full trace up to there. A journal that does not
    fit the machine is :class:`~agentsm_fn.durable.errors.Diverged`, naming the first
    step that differs.
    """
    initial = store.initial_memory(run_id)
    if isinstance(initial, Failure):
        return initial
    memory = from_bytes(initial.unwrap(), object)
    if isinstance(memory, Failure):
        return Failure(memory.failure().within(run_id, "memory"))
    rows = store.journal(run_id)
    if isinstance(rows, Failure):
        return rows
    tail = store.tail(run_id)
    if isinstance(tail, Failure):
        return tail
    snap: Snapshot[StateT, MemoryT] = begin(machine, memory.unwrap())  # type: ignore[arg-type]  # stored by this machine
    done: Callable[[Snapshot[StateT, MemoryT]], bool] = (
        (lambda s: False) if until_step is None else (lambda s: s.steps >= until_step)
    )

    def diverged(seq: int, detail: str) -> Failure[DurableError]:
        return Failure(Diverged(run_id=run_id, seq=seq, step=snap.steps + 1, detail=detail))

    def tick(at: float, seq: int) -> Result[Snapshot[StateT, MemoryT], DurableError]:
        if snap.status is not Status.READY:
            found = "finished" if snap.finished else f"awaiting {describe_effect(snap.pending)}"
            return diverged(seq, f"the journal runs a handler where the machine is {found}")
        stepped = step(machine, snap, at)
        return Success(stepped.unwrap() if isinstance(stepped, Success) else stepped.failure().snapshot)

    for row in rows.unwrap():
        for at in row.ticks:
            if done(snap):
                return Success(snap)
            moved = tick(at, row.seq)
            if isinstance(moved, Failure):
                return moved
            snap = moved.unwrap()
        if done(snap) or row.outcome is None:
            return Success(snap)
        if snap.status is not Status.AWAITING or snap.pending is None:
            return diverged(
                row.seq, f"the journal has an outcome of {row.summary}; the machine asks for nothing"
            )
        if content_digest(snap.pending) != row.digest:
            return diverged(
                row.seq,
                f"the machine asks for {describe_effect(snap.pending)}; the journal has {row.summary}",
            )
        outcome = from_bytes(row.outcome, object)
        if isinstance(outcome, Failure):
            return Failure(outcome.failure().within(run_id, f"journal[{row.seq}].outcome"))
        resumed = resume(machine, snap, outcome.unwrap(), row.at or 0.0)
        snap = resumed.unwrap() if isinstance(resumed, Success) else resumed.failure().snapshot
    for at in tail.unwrap():
        if done(snap) or snap.status is not Status.READY:
            break
        moved = tick(at, len(rows.unwrap()))
        if isinstance(moved, Failure):
            return moved
        snap = moved.unwrap()
    return Success(snap)
