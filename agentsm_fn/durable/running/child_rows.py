"""A child's stored row and its outcome: decoded, made for a new group, or read back from an ended run.

The outcome a child's row keeps is written once, when the child ended (``children.child_ended``);
these read it back (a corrupt one is a failed child saying so), and make the outcome of a child
whose run ended but whose end was not written (its process died between the two), and a child's
run as it is queued.
"""

from __future__ import annotations

from returns.result import Failure

from agentsm_fn.durable.child_errors import ChildOutcomeCorrupt
from agentsm_fn.durable.running.child_programs import AnyProgram, ended_outcome, failed_outcome, load_program
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStatus
from agentsm_fn.teams.values import ChildCancelled, ChildFailed, ChildFinished, ChildOutcome

__all__ = ["decoded", "encoded", "lost", "queued_run", "record_of", "recorded"]


def encoded(outcome: object) -> bytes:
    """A child outcome (or a gathered one) as stored: attrs values of plain fields, always encodable."""
    return to_bytes(outcome).unwrap()


def decoded(record: ChildRecord) -> ChildOutcome | None:
    """The stored outcome of a child (None: not ended); a corrupt one is a failed child saying so."""
    if record.outcome is None:
        return None
    found = from_bytes(record.outcome, object)
    value = found.value_or(None)
    if isinstance(value, ChildFinished | ChildFailed | ChildCancelled):
        return value
    detail = found.failure().describe() if isinstance(found, Failure) else f"a {type(value).__name__}"
    return ChildFailed(
        run_id=record.run_id,
        program=record.program,
        reason=ChildOutcomeCorrupt(run_id=record.run_id, detail=detail).describe(),
    )


def queued_run(program: AnyProgram, child: NewChild | ChildRecord, now: float) -> NewRun:
    """The READY run of a child, as it is queued (to be claimed by a worker, or run here).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable import Durable
        >>> program = Durable(name="app:AGENT", machine=REACT_MACHINE)
        >>> row = NewChild(run_id="p.c0", parent="p", seq=0, index=-1, size=1, program="app:A", memory=b"")
        >>> queued_run(program, row, 1.0).run_id
        'p.c0'
    """
    return NewRun(
        run_id=child.run_id,
        machine=program.name,
        fingerprint=program.fingerprint,
        memory=child.memory,
        created=now,
        owner="",
        lease_until=0.0,
    )


def record_of(row: NewChild, run: NewRun) -> ChildRecord:
    """The record of a child just stored with its ``run`` (RUNNING if owned, else READY), not ended.

    Example:
        >>> row = NewChild(run_id="p.c0", parent="p", seq=0, index=-1, size=1, program="app:C", memory=b"")
        >>> run = NewRun(run_id="p.c0", machine="app:C", fingerprint="f", memory=b"", created=0.0, owner="",
        ...              lease_until=0.0)
        >>> record_of(row, run).status.value
        'ready'
    """
    return ChildRecord(
        run_id=row.run_id,
        parent=row.parent,
        seq=row.seq,
        index=row.index,
        size=row.size,
        program=row.program,
        memory=row.memory,
        limit=row.limit,
        cancel_rest=row.cancel_rest,
        outcome=None,
        status=RunStatus.RUNNING if run.owner else RunStatus.READY,
        fingerprint=run.fingerprint,
    )


def lost(record: ChildRecord) -> ChildOutcome:
    """A child that ended with no outcome kept (never expected: read as failed)."""
    return ChildFailed(run_id=record.run_id, program=record.program, reason="its outcome was not stored")


_ENDED = (RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELLED)


def recorded(store: ChildStore, record: ChildRecord) -> ChildOutcome | None:
    """The outcome of a child whose run ended but whose end was not recorded (its process died between)."""
    if record.status not in _ENDED:
        return None
    if record.status is RunStatus.CANCELLED:
        outcome: ChildOutcome = ChildCancelled(run_id=record.run_id, program=record.program)
    elif record.status is RunStatus.FAILED:
        reason = store.get(record.run_id).map(lambda r: r.reason).value_or("it failed")
        outcome = failed_outcome(record.program, record.run_id, reason)
    else:
        loaded = load_program(record.program, {})
        if isinstance(loaded, Failure):
            outcome = failed_outcome(record.program, record.run_id, loaded.failure().describe())
        else:
            program = loaded.unwrap()
            snapshot = replay_stored(store, program.machine, record.run_id)
            if isinstance(snapshot, Failure):
                outcome = failed_outcome(record.program, record.run_id, snapshot.failure().describe())
            else:
                outcome = ended_outcome(program, record.run_id, snapshot.unwrap())
    store.end_child(record.run_id, encoded(outcome))
    return outcome
