"""The journal of a PostgresStore: effects started, committed, waiting (answered: ``stores.sql.writes``).

Every write is fenced by ownership (see :mod:`agentsm_fn.durable.stores.postgres._group`).
"""

from __future__ import annotations

from returns.result import Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.postgres._connection import PostgresConnection
from agentsm_fn.durable.stores.postgres._group import (
    ENTRY,
    OWNED,
    Op,
    Statement,
    insert_op,
    journal_op,
    start_op,
)
from agentsm_fn.durable.stores.protocol.store import JournalRow, NewRun

__all__ = ["PostgresJournal"]


class PostgresJournal(PostgresConnection):
    """Writing and reading journal rows (:mod:`agentsm_fn.durable.stores.postgres` is the whole store)."""

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
        completing its started row; all in one transaction (nothing is written if ``done`` is not).
        """
        op = start_op(run_id, owner, row, create, done)
        return self._write("commit effect", run_id, op)

    def commit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Commit an effect's outcome: complete its started row, or insert one (and ``create`` the run)."""
        return self._write("commit effect", run_id, journal_op(run_id, owner, row, started, create))

    def _write(self, operation: str, run_id: str, op: Op) -> Result[None, RunBusy | StoreFailure]:
        return self._fenced(self._do(operation, op, run_id, one_statement=isinstance(op, Statement)), run_id)

    async def astart_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`start_effect` for async runs: committed with the writes of other runs (group commit)."""
        op = start_op(run_id, owner, row, create, done)
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
            return self._write("record wait", run_id, insert_op(run_id, owner, row, None, create))
        mark = Statement(
            OWNED + "UPDATE journal SET waiting = true, effect = %s " + ENTRY + "AND outcome IS NULL",
            (run_id, owner, row.effect, run_id, row.seq),
        )
        return self._write("record wait", run_id, mark)

    def forget(
        self, run_id: str, seq: int, keep_started: bool, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Undo the outcome of entry ``seq`` (the machine did not take it): keep it as started, or drop it."""
        change = "UPDATE journal SET outcome = NULL, at = NULL " if keep_started else "DELETE FROM journal "
        return self._write(
            "forget outcome", run_id, Statement(OWNED + change + ENTRY, (run_id, owner, run_id, seq))
        )
