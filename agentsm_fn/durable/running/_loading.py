"""Loading a stored run to go on with it: from its latest checkpoint, or from its start."""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import begin
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.errors import Diverged, DurableError, MachineChanged, NotResumable
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, RunStatus, RunStore

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Loaded(Generic[StateT, MemoryT]):
    """A stored run ready to go on: where to start, and the journal rows still to replay."""

    start: MemoryT | Snapshot[StateT, MemoryT]
    rows: tuple[JournalRow, ...]
    tail: tuple[float, ...]
    first_seq: int
    from_checkpoint: bool
    checkpoint_bytes: int


def load_for_resume(
    store: RunStore,
    machine: Machine[StateT, EventT, MemoryT],
    run_id: str,
    current: str,
    allow_changed: bool,
) -> Result[Loaded[StateT, MemoryT], DurableError]:
    """The run's start (checkpoint or initial memory) and its journal after it."""
    found = store.get(run_id)
    if isinstance(found, Failure):
        return found
    record = found.unwrap()
    if record.status is RunStatus.FINISHED or record.status is RunStatus.CANCELLED:
        why = "it is finished" if record.status is RunStatus.FINISHED else "it was cancelled"
        return Failure(NotResumable(run_id=run_id, status=record.status.value, why=why))
    changed = record.fingerprint != current
    if changed and not allow_changed:
        return Failure(
            MachineChanged(run_id=run_id, machine=record.machine, stored=record.fingerprint, current=current)
        )
    point = None if changed else store.checkpoint(run_id)
    if isinstance(point, Failure):
        return point
    checkpoint = None if point is None else point.unwrap()
    tail = store.tail(run_id)
    if isinstance(tail, Failure):
        return tail
    if checkpoint is not None:
        restored = _from_checkpoint(machine, run_id, checkpoint)
        if isinstance(restored, Failure):
            return restored
        start, first_seq = restored.unwrap(), checkpoint.seq
        size = len(checkpoint.memory) + len(checkpoint.pending)
    else:
        initial = initial_snapshot(store, machine, run_id)
        if isinstance(initial, Failure):
            return initial
        (start, size), first_seq = initial.unwrap(), 0
    rows = store.journal(run_id, first_seq)
    if isinstance(rows, Failure):
        return rows
    return Success(
        Loaded(
            start=start,
            rows=rows.unwrap(),
            tail=tail.unwrap(),
            first_seq=first_seq,
            from_checkpoint=checkpoint is not None,
            checkpoint_bytes=size,
        )
    )


def _from_checkpoint(
    machine: Machine[StateT, EventT, MemoryT], run_id: str, checkpoint: Checkpoint
) -> Result[Snapshot[StateT, MemoryT], DurableError]:
    seq, state_name, steps = checkpoint.seq, checkpoint.state, checkpoint.steps
    state = machine.states.__members__.get(state_name)
    if state is None:
        detail = f"the checkpoint waits in state {state_name}, which this machine no longer has"
        return Failure(Diverged(run_id=run_id, seq=seq, step=steps + 1, detail=detail))
    memory = from_bytes(checkpoint.memory, object)
    if isinstance(memory, Failure):
        return Failure(memory.failure().within(run_id, f"checkpoint[{seq}].memory"))
    pending = from_bytes(checkpoint.pending, Effect)
    if isinstance(pending, Failure):
        return Failure(pending.failure().within(run_id, f"checkpoint[{seq}].pending"))
    snapshot: Snapshot[StateT, MemoryT] = Snapshot(
        state=state,
        memory=memory.unwrap(),  # type: ignore[arg-type]  # stored by a run of this machine
        status=Status.AWAITING,
        pending=pending.unwrap(),
        steps=steps,
    )
    return Success(snapshot)


def initial_snapshot(
    store: RunStore, machine: Machine[StateT, EventT, MemoryT], run_id: str
) -> Result[tuple[Snapshot[StateT, MemoryT], int], DurableError]:
    """The snapshot a stored run began from (a fork's begins mid-run), and its memory's size in bytes."""
    initial = store.initial_memory(run_id)
    if isinstance(initial, Failure):
        return initial
    start = store.start(run_id)
    if isinstance(start, Failure):
        return start
    memory = from_bytes(initial.unwrap(), object)
    if isinstance(memory, Failure):
        return Failure(memory.failure().within(run_id, "memory"))
    value: MemoryT = memory.unwrap()  # type: ignore[assignment]  # stored by a run of this machine
    state_name, steps = start.unwrap()
    if not state_name:
        return Success((begin(machine, value), len(initial.unwrap())))
    state = machine.states.__members__.get(state_name)
    if state is None:
        detail = f"the run starts in state {state_name}, which this machine no longer has"
        return Failure(Diverged(run_id=run_id, seq=0, step=steps + 1, detail=detail))
    status = Status.FINISHED if state in machine.terminals else Status.READY
    return Success((Snapshot(state=state, memory=value, status=status, steps=steps), len(initial.unwrap())))


def release(
    store: RunStore,
    run_id: str,
    owner: str,
    now: float,
    status: RunStatus | None = None,
    reason: str | None = None,
) -> None:
    """Let a claimed run go exactly as it was stored: it did not load, or diverged (it went no further).

    Its state, steps, tail and fingerprint stay; a RUNNING run becomes READY (let go), or ``status``.
    """
    record, tail = store.get(run_id), store.tail(run_id)
    if isinstance(record, Success) and isinstance(tail, Success):  # else its lease expires
        kept = record.unwrap()
        let_go = RunStatus.READY if kept.status is RunStatus.RUNNING else kept.status
        why = kept.reason if reason is None else reason
        store.stop(
            run_id, attrs.evolve(kept, status=status or let_go, reason=why, updated=now), tail.unwrap(), owner
        )
