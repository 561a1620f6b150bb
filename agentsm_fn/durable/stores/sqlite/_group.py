"""The SQLite store's journal writes as operations, and writing a group of them in one transaction.

The group commit itself (which writes go together) is :mod:`agentsm_fn.durable.stores.sql.group`.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import JournalRow, NewRun
from agentsm_fn.durable.stores.sql.group import after
from agentsm_fn.durable.stores.sql.rows import pack_ticks
from agentsm_fn.durable.stores.sqlite._rows import insert_run

Op = Callable[[sqlite3.Connection], int]
"""One journal write: statements run inside the caller's transaction; returns the rows it wrote."""


def complete_op(run_id: str, owner: str, row: JournalRow) -> Op:
    """Complete the started row ``row.seq`` with ``row.outcome``, fenced by ownership."""

    def complete(db: sqlite3.Connection) -> int:
        return db.execute(
            "UPDATE journal SET outcome = ?, at = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL "
            "AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
            (row.outcome, row.at, run_id, row.seq, run_id, owner),
        ).rowcount

    return complete


def insert_op(run_id: str, owner: str, row: JournalRow, outcome: bytes | None, create: NewRun | None) -> Op:
    """Insert ``row`` with ``outcome`` (after storing ``create``, the run itself), fenced by ownership."""

    def insert(db: sqlite3.Connection) -> int:
        if create is not None:
            insert_run(db, create)
        return db.execute(
            "INSERT INTO journal(run_id, seq, digest, ticks, outcome, at, waiting, summary, effect) "
            "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
            (
                run_id,
                row.seq,
                row.digest,
                pack_ticks(row.ticks),
                outcome,
                row.at,
                int(row.waiting),
                row.summary,
                row.effect,
                run_id,
                owner,
            ),
        ).rowcount

    return insert


def journal_op(run_id: str, owner: str, row: JournalRow, started: bool, create: NewRun | None) -> Op:
    """The write of ``row``: complete a started row (``started`` and an outcome), or insert it (fenced)."""
    return complete_op(run_id, owner, row) if started else insert_op(run_id, owner, row, row.outcome, create)


def after_done(run_id: str, owner: str, done: JournalRow | None, op: Op) -> Op:
    """``op`` preceded by completing ``done`` (the effect before): nothing more is written if that fails."""
    return op if done is None else after(complete_op(run_id, owner, done), op)


def run_group(db: sqlite3.Connection, lock: threading.Lock, ops: list[Op]) -> list[Result[int, StoreFailure]]:
    """Run ``ops`` in one transaction, each in a savepoint; every result is known once it committed."""

    def failed(exc: Exception) -> Result[int, StoreFailure]:
        return Failure(StoreFailure(operation="commit effect", detail=str(exc)))

    with lock:
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            return [failed(exc)] * len(ops)
        results: list[Result[int, StoreFailure]] = []
        for op in ops:
            try:
                db.execute("SAVEPOINT one")
                results.append(Success(op(db)))
                db.execute("RELEASE one")
            except Exception as exc:  # a refused write (or a bug) fails this op alone
                results.append(failed(exc))
                try:
                    db.execute("ROLLBACK TO one")
                    db.execute("RELEASE one")
                except sqlite3.Error:  # pragma: no cover - the savepoint is gone with the transaction
                    pass
        try:
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            with contextlib.suppress(sqlite3.Error):  # nothing left to roll back
                db.execute("ROLLBACK")
            return [failed(exc)] * len(ops)
    return results
