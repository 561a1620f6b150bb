"""Group commit for concurrent async runs: the journal rows of many runs in one SQLite transaction.

Under ``arun``, many runs share one store. Each journal write is still committed before
its run goes on (the run awaits it), but the writes that arrive while a transaction is
being written are committed together in the next one, each in its own savepoint (one
run's refused write does not undo another's). The transaction runs in a thread, so the
event loop goes on meanwhile. A commit costs one transaction per group instead of one
per effect.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from collections.abc import Callable

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.sqlite._rows import insert_run, pack_ticks
from agentsm_fn.durable.store import JournalRow, NewRun

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
    if done is None:
        return op
    complete = complete_op(run_id, owner, done)

    def both(db: sqlite3.Connection) -> int:
        return op(db) if complete(db) else 0

    return both


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


class GroupCommit:
    """Collects the journal writes of one event loop's runs and commits them a group at a time."""

    def __init__(self, db: sqlite3.Connection, lock: threading.Lock) -> None:
        self.db = db
        self.lock = lock
        self.pending: list[tuple[Op, asyncio.Future[Result[int, StoreFailure]]]] = []
        self.writing = False
        self.task: asyncio.Task[None] | None = None  # kept: the loop holds tasks weakly

    async def submit(self, op: Op) -> Result[int, StoreFailure]:
        """Write ``op`` with the next group; return once that group committed."""
        future: asyncio.Future[Result[int, StoreFailure]] = asyncio.get_running_loop().create_future()
        self.pending.append((op, future))
        if not self.writing:
            self.writing = True
            self.task = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self.pending:
                group, self.pending = self.pending, []
                try:
                    results = await asyncio.to_thread(run_group, self.db, self.lock, [op for op, _ in group])
                except Exception as exc:  # the thread could not run: every write of the group failed
                    failure: Result[int, StoreFailure] = Failure(
                        StoreFailure(operation="commit effect", detail=f"{type(exc).__name__}: {exc}")
                    )
                    results = [failure] * len(group)
                for (_, future), result in zip(group, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self.writing = False
