"""A child's stored row and its outcome: decoded, made for a new group, or read back from an ended run.

The outcome a child's row keeps is written once, when the child ended (``children.child_ended``);
these read it back (a corrupt one is a failed child saying so), and make the outcome of a child
whose run ended but whose end was not written (its process died between the two).
"""

from __future__ import annotations

from returns.result import Failure

from agentsm_fn.durable.child_errors import ChildOutcomeCorrupt
from agentsm_fn.durable.running.child_programs import ended_outcome, failed_outcome, load_program
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import RunStatus
from agentsm_fn.teams.values import ChildCancelled, ChildFailed, ChildFinished, ChildOutcome

__all__ = ["decoded", "encoded", "fresh", "lost", "recorded"]


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


def fresh(row: NewChild, started: bool = False) -> ChildRecord:
    """The record of a child just stored: not ended; queued if ``started``."""
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
        status=RunStatus.READY if started else None,
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
