"""The journal of a SqliteStore: effects started, committed, waiting (answered: ``stores.sql.writes``).

Every write is fenced by ownership: a row is written only while the writing process owns the run.
"""

from __future__ import annotations

import sqlite3

from returns.result import Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.store import JournalRow, NewRun
from agentsm_fn.durable.stores.sql.reads import comparable
from agentsm_fn.durable.stores.sqlite._connection import SqliteConnection
from agentsm_fn.durable.stores.sqlite._group import Op, after_done, complete_op, insert_op, journal_op
from agentsm_fn.durable.stores.sqlite._rows import transaction

__all__ = ["SqliteJournal"]


class SqliteJournal(SqliteConnection):
    """Writing and reading journal rows (see :mod:`agentsm_fn.durable.stores.sqlite` for the whole store)."""

    def start_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` is about to be performed (no outcome yet), fenced by ownership.

        ``create``: the run itself, not stored yet; ``done``: the outcome of the effect before,
        completing its started row; both written in the same transaction.
        """
        op = after_done(run_id, owner, done, insert_op(run_id, owner, row, None, create))
        return self._write(run_id, op, create is not None or done is not None)

    def commit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Commit an effect's outcome: complete its started row, or insert one (and ``create`` the run)."""
        if not started:
            return self._write(run_id, insert_op(run_id, owner, row, row.outcome, create), create is not None)
        return self._fenced(self._do("commit effect", complete_op(run_id, owner, row), run_id), run_id)

    def _write(self, run_id: str, op: Op, together: bool) -> Result[None, RunBusy | StoreFailure]:
        """Run ``op``; in one transaction if it writes more than one statement (``together``)."""

        def work(db: sqlite3.Connection) -> int:
            if not together:
                return op(db)
            with transaction(db):  # a refused write (0 rows) wrote nothing: the fence comes first
                return op(db)

        return self._fenced(self._do("commit effect", work, run_id), run_id)

    async def astart_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`start_effect` for async runs: committed with the writes of other runs (group commit)."""
        op = after_done(run_id, owner, done, insert_op(run_id, owner, row, None, create))
        return self._fenced(await self._groups.current().submit(op), run_id)

    async def acommit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`commit` for async runs: committed with the writes of other runs (group commit)."""
        op = journal_op(run_id, owner, row, started, None if started else create)
        return self._fenced(await self._groups.current().submit(op), run_id)

    def wait(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` waits for an answer from outside (``row.effect`` says what)."""
        if not started:
            return self._write(run_id, insert_op(run_id, owner, row, None, create), create is not None)

        def work(db: sqlite3.Connection) -> int:
            return db.execute(  # fenced like every write: a process that lost the run changes nothing
                "UPDATE journal SET waiting = 1, effect = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL "
                "AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
                (row.effect, run_id, comparable(row.seq), run_id, owner),
            ).rowcount

        return self._fenced(self._do("record wait", work, run_id), run_id)

    def forget(
        self, run_id: str, seq: int, keep_started: bool, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Undo the outcome of entry ``seq`` (the machine did not take it): keep it as started, or drop it."""
        statement = (
            "UPDATE journal SET outcome = NULL, at = NULL WHERE run_id = ? AND seq = ? "
            if keep_started
            else "DELETE FROM journal WHERE run_id = ? AND seq = ? "
        ) + "AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)"

        def work(db: sqlite3.Connection) -> int:
            return db.execute(statement, (run_id, comparable(seq), run_id, owner)).rowcount

        return self._fenced(self._do("forget outcome", work, run_id), run_id)
