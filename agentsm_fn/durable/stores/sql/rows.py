"""Stored rows as records, and what a store's transactions turn into, for every store.

Clock readings as bytes, run records, journal rows, checkpoints; the results of a claim, an
answer, a trace context read, a run looked up.

A store reads its columns in the order of :data:`RUN_COLUMNS` (and of a journal row's
``seq, digest, ticks, outcome, at, waiting, summary, effect``) and builds records here, so a
malformed column is the same typed :class:`CorruptColumn` whichever database it came from.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused, RunBusy, RunNotFound, StoreFailure
from agentsm_fn.durable.stores.protocol.owners import owner_holds
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus

__all__ = [
    "NEW_RUN_COLUMNS",
    "RUN_COLUMNS",
    "CorruptColumn",
    "answered",
    "built",
    "carrier_from",
    "carrier_text",
    "checkpoint_from",
    "checkpoint_values",
    "claimed",
    "found_run",
    "holder",
    "new_run_values",
    "pack_ticks",
    "record_from",
    "refusal",
    "row_from",
    "unpack_ticks",
]

T = TypeVar("T")


def pack_ticks(ticks: tuple[float, ...] | list[float]) -> bytes:
    """Clock readings as little-endian doubles.

    Example:
        >>> unpack_ticks(pack_ticks([1.5, 2.0]))
        (1.5, 2.0)
    """
    return struct.pack(f"<{len(ticks)}d", *ticks)


class CorruptColumn(ValueError):
    """A stored column that is not what a store writes (raised in a query: a ``StoreFailure``)."""


def unpack_ticks(data: bytes | None, column: str = "ticks") -> tuple[float, ...]:
    """The readings :func:`pack_ticks` wrote (empty for NULL); :class:`CorruptColumn` for malformed data.

    Example:
        >>> unpack_ticks(bytes(9), "tail")
        Traceback (most recent call last):
        ...
        agentsm_fn.durable.stores.sql.rows.CorruptColumn: tail: corrupt: 9 bytes are not whole clock readings
    """
    if not data:
        return ()
    if len(data) % 8:
        raise CorruptColumn(f"{column}: corrupt: {len(data)} bytes are not whole clock readings")
    return struct.unpack(f"<{len(data) // 8}d", data)


RUN_COLUMNS = (
    "id, machine, fingerprint, status, created, updated, state, steps, effects, reason, owner, lease_until, "
    "parent, parent_step"
)


def record_from(row: tuple[object, ...]) -> RunRecord:
    """A run record from its :data:`RUN_COLUMNS`; an unknown status is a :class:`CorruptColumn`."""
    (
        run_id,
        machine,
        fingerprint,
        status,
        created,
        updated,
        state,
        steps,
        effects,
        reason,
        owner,
        lease,
        parent,
        pstep,
    ) = row
    try:
        known = RunStatus(status)
    except ValueError:
        raise CorruptColumn(f"run {run_id}, status: corrupt: {status!r} is not a run status") from None
    return RunRecord(
        run_id=str(run_id),
        machine=str(machine),
        fingerprint=str(fingerprint),
        status=known,
        created=float(created or 0.0),  # type: ignore[arg-type]  # a REAL column
        updated=float(updated or 0.0),  # type: ignore[arg-type]  # a REAL column
        state=str(state or ""),
        steps=int(steps or 0),  # type: ignore[call-overload]  # an INTEGER column
        effects=int(effects or 0),  # type: ignore[call-overload]  # an INTEGER column
        reason=str(reason or ""),
        owner=str(owner or ""),
        lease_until=float(lease or 0.0),  # type: ignore[arg-type]  # a REAL column
        parent=str(parent or ""),
        parent_step=int(pstep if pstep is not None else -1),  # type: ignore[call-overload]  # an INTEGER column
    )


def row_from(row: tuple[object, ...], run_id: str = "") -> JournalRow:
    """A journal row as read; a corrupt column names ``run_id`` (when given) and the entry."""
    seq, digest, ticks, outcome, at, waiting, summary, effect = row
    where = f"run {run_id}, " if run_id else ""
    return JournalRow(
        seq=int(seq),  # type: ignore[call-overload]  # an INTEGER column
        digest=bytes(digest or b""),  # type: ignore[call-overload]  # a BLOB column
        ticks=unpack_ticks(ticks, f"{where}journal[{seq}].ticks"),  # type: ignore[arg-type]  # a BLOB column
        outcome=None if outcome is None else bytes(outcome),  # type: ignore[call-overload]  # a BLOB column
        at=at,  # type: ignore[arg-type]  # a REAL column
        waiting=bool(waiting),
        summary=str(summary or ""),
        effect=None if effect is None else bytes(effect),  # type: ignore[call-overload]  # a BLOB column
    )


def carrier_from(
    found: Result[tuple[object, ...] | None, StoreFailure], run_id: str
) -> Result[Mapping[str, str], StoreFailure]:
    """A stored trace context (the row of its JSON text), ``{}`` if none; not a mapping of strings fails."""
    if isinstance(found, Failure):
        return found
    row = found.unwrap()
    if row is None:
        return Success(MappingProxyType({}))
    try:
        value = json.loads(str(row[0]))
    except ValueError as exc:
        value = exc
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        detail = "the stored trace context is not a JSON object of strings"
        return Failure(StoreFailure(operation="read trace context", detail=detail, run_id=run_id))
    return Success(MappingProxyType(value))


def carrier_text(carrier: Mapping[str, str]) -> str:
    """A trace context as stored: JSON with sorted keys.

    Example:
        >>> carrier_text({"traceparent": "00-ab-cd-01"})
        '{"traceparent": "00-ab-cd-01"}'
    """
    return json.dumps(dict(carrier), sort_keys=True)


def found_run(found: Result[T | None, StoreFailure], run_id: str) -> Result[T, RunNotFound | StoreFailure]:
    """What a query for run ``run_id`` found; RunNotFound when it found nothing."""
    if isinstance(found, Failure):
        return found
    value = found.unwrap()
    return Failure(RunNotFound(run_id=run_id)) if value is None else Success(value)


def built(row: tuple[object, ...] | None, build: Callable[[tuple[object, ...]], T]) -> T | None:
    """``build(row)``, or None for no row (called inside the query, so a corrupt row is a StoreFailure).

    Example:
        >>> built(None, len), built((1, 2), len)
        (None, 2)
    """
    return None if row is None else build(row)


def claimed(done: Result[str, StoreFailure], run_id: str) -> Result[None, RunBusy | StoreFailure]:
    """A claim's result from its transaction's: ``""`` (claimed), ``"missing"``, or the live holder."""
    if isinstance(done, Failure):
        return done
    holder = done.unwrap()
    if holder == "missing":
        return Failure(StoreFailure(operation="claim run", detail="no such run", run_id=run_id))
    return Failure(RunBusy(run_id=run_id, owner=holder)) if holder else Success(None)


def refusal(run_id: str, seq: int, row: tuple[object, ...] | None) -> tuple[AnswerRefusal, str]:
    """Why an answer to entry ``seq`` was not taken, from the entry's ``(waiting, answered)`` (or None).

    Example:
        >>> refusal("r1", 2, (True, True))
        (<AnswerRefusal.ANSWERED_ALREADY: 'answered already'>, 'it was answered already')
    """
    if row is None:
        return AnswerRefusal.NOTHING_WAITS, f"run {run_id} has no entry {seq}"
    if not row[0]:
        return AnswerRefusal.NOTHING_WAITS, "that entry is not waiting for an answer"
    if row[1]:
        return AnswerRefusal.ANSWERED_ALREADY, "it was answered already"
    return AnswerRefusal.NOTHING_WAITS, "the run is finished: it waits for nothing"


def answered(
    done: Result[tuple[AnswerRefusal, str] | None, StoreFailure], run_id: str, seq: int
) -> Result[None, AnswerRefused | StoreFailure]:
    """An answer's result from its transaction's: None (taken) or why it was refused."""
    if isinstance(done, Failure):
        return done
    refused = done.unwrap()
    if refused is None:
        return Success(None)
    kind, why = refused
    return Failure(AnswerRefused(run_id=run_id, seq=seq, kind=kind, why=why))


def checkpoint_from(row: tuple[object, ...] | None) -> Checkpoint | None:
    """A checkpoint from its ``seq, state, steps, memory, pending`` columns (None: no checkpoint)."""
    if row is None:
        return None
    seq, state, steps, memory, pending = row
    return Checkpoint(
        seq=int(seq),  # type: ignore[call-overload]  # an INTEGER column
        state=str(state),
        steps=int(steps),  # type: ignore[call-overload]  # an INTEGER column
        memory=bytes(memory),  # type: ignore[call-overload]  # a BLOB column
        pending=bytes(pending),  # type: ignore[call-overload]  # a BLOB column
    )


def checkpoint_values(checkpoint: Checkpoint) -> tuple[object, ...]:
    """A checkpoint's ``seq, state, steps, memory, pending``, as both stores write them."""
    return (checkpoint.seq, checkpoint.state, checkpoint.steps, checkpoint.memory, checkpoint.pending)


def holder(row: tuple[object, ...] | None, owner: str, now: float) -> str:
    """Who keeps ``owner`` from claiming a run (its ``owner, lease_until``): ``""`` nobody; or ``"missing"``.

    Example:
        >>> holder(("", None), "me:1", 5.0), holder(None, "me:1", 5.0)
        ('', 'missing')
    """
    if row is None:
        return "missing"
    held, lease = str(row[0] or ""), float(row[1] or 0.0)  # type: ignore[arg-type]  # a REAL column
    return held if held != owner and owner_holds(held, lease, now) else ""


NEW_RUN_COLUMNS = (
    "id, machine, fingerprint, status, created, updated, owner, lease_until, parent, parent_step, memory, "
    "start_state, start_steps"
)
"""The columns a new run is inserted with, in the order of :func:`new_run_values`."""


def new_run_values(run: NewRun, queued: bool = False) -> tuple[object, ...]:
    """A new run's row in the order of :data:`NEW_RUN_COLUMNS`: RUNNING, owned by ``run.owner``.

    ``queued``: READY and owned by nobody instead, for a worker to claim.
    """
    return (
        run.run_id,
        run.machine,
        run.fingerprint,
        (RunStatus.READY if queued else RunStatus.RUNNING).value,
        run.created,
        run.created,
        None if queued else run.owner,
        None if queued else run.lease_until,
        run.parent,
        run.parent_step,
        run.memory,
        run.start_state,
        max(run.parent_step, 0),
    )
