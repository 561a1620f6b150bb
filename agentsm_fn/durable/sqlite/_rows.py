"""Rows of the SQLite store: clock readings as bytes, records from rows, inserting a run, a transaction."""

from __future__ import annotations

import sqlite3
import struct
from collections.abc import Iterator
from contextlib import contextmanager

from agentsm_fn.durable.store import JournalRow, NewRun, RunRecord, RunStatus


def pack_ticks(ticks: tuple[float, ...] | list[float]) -> bytes:
    """Clock readings as little-endian doubles.

    Example:
        >>> unpack_ticks(pack_ticks([1.5, 2.0]))
        (1.5, 2.0)
    """
    return struct.pack(f"<{len(ticks)}d", *ticks)


class CorruptColumn(sqlite3.DatabaseError):
    """A stored column that is not what this store writes (raised in a query: a ``StoreFailure``)."""


def unpack_ticks(data: bytes | None, column: str = "ticks") -> tuple[float, ...]:
    """The readings :func:`pack_ticks` wrote (empty for NULL); :class:`CorruptColumn` for malformed data.

    Example:
        >>> unpack_ticks(bytes(9), "tail")
        Traceback (most recent call last):
        ...
        agentsm_fn.durable.sqlite._rows.CorruptColumn: tail: corrupt: 9 bytes are not whole clock readings
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
    return RunRecord(
        run_id=str(run_id),
        machine=str(machine),
        fingerprint=str(fingerprint),
        status=RunStatus(status),
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
        outcome=outcome,  # type: ignore[arg-type]  # a BLOB column
        at=at,  # type: ignore[arg-type]  # a REAL column
        waiting=bool(waiting),
        summary=str(summary or ""),
        effect=effect,  # type: ignore[arg-type]  # a BLOB column
    )


def insert_run(db: sqlite3.Connection, run: NewRun) -> None:
    db.execute(
        "INSERT INTO runs(id, machine, fingerprint, status, created, updated, owner, lease_until, parent, "
        "parent_step, memory, start_state, start_steps) "
        "VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.run_id,
            run.machine,
            run.fingerprint,
            run.created,
            run.created,
            run.owner,
            run.lease_until,
            run.parent,
            run.parent_step,
            run.memory,
            run.start_state,
            max(run.parent_step, 0),
        ),
    )


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
