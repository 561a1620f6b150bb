"""The PostgreSQL store's journal writes as operations, and writing a group of them in one transaction.

Every write is fenced by ownership and takes the run's row ``FOR SHARE``: a concurrent
``claim`` (which updates that row) waits for the write to commit, or the write waits for the
claim and then finds another owner and writes nothing. So a process that lost its run can
never write into it, even while another process is taking it over. The group commit itself
(which writes go together) is :mod:`agentsm_fn.durable.stores.sql.group`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs
import psycopg
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.postgres._where import Where
from agentsm_fn.durable.stores.protocol.store import JournalRow, NewRun
from agentsm_fn.durable.stores.sql.group import after
from agentsm_fn.durable.stores.sql.rows import NEW_RUN_COLUMNS, new_run_values, pack_ticks

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

__all__ = [
    "COMPLETE",
    "ENTRY",
    "OWNED",
    "Op",
    "Statement",
    "complete_op",
    "insert_op",
    "insert_run",
    "journal_op",
    "run_group",
    "start_op",
]


class Db(psycopg.Connection[tuple[object, ...]]):
    """A connection of the store's pool: it keeps one cursor for the one-statement writes.

    ``execute`` on a connection makes a new cursor, which looks up how to send each parameter's
    type again; the kept cursor did that once. A connection is used by one thread at a time
    (the pool lends it), so its cursor is too.
    """

    _writing: psycopg.Cursor[tuple[object, ...]] | None = None

    def write(self, sql: str, params: tuple[object, ...]) -> int:
        """Run the statement ``sql`` on the kept cursor; the rows it wrote."""
        if self._writing is None or self._writing.closed:
            self._writing = self.cursor()
        return self._writing.execute(sql, params).rowcount


Op = Callable[[Db], int]
"""One journal write: statements run inside the caller's transaction; returns the rows it wrote."""

OWNED = "WITH owned AS (SELECT id FROM runs WHERE id = %s AND owner = %s FOR SHARE) "
"""The ownership fence every journal write starts with (parameters: run id, owner)."""


_MARKS = ", ".join(["%s"] * len(NEW_RUN_COLUMNS.split(",")))


def insert_run(db: Db, run: NewRun) -> None:
    """Store ``run`` (RUNNING, owned by ``run.owner``) in the caller's transaction."""
    db.execute(f"INSERT INTO runs({NEW_RUN_COLUMNS}) VALUES ({_MARKS})", new_run_values(run))


@attrs.frozen
class Statement:
    """A journal write that is one SQL statement: it needs no transaction block of its own.

    Run on an autocommit connection it is one round trip (no ``BEGIN``, no ``COMMIT``); it
    is atomic all the same, as every PostgreSQL statement is.
    """

    sql: str
    params: tuple[object, ...]

    def __call__(self, db: Db) -> int:
        """Run the statement; the rows it wrote."""
        return db.write(self.sql, self.params)


ENTRY = "WHERE journal.run_id = %s AND journal.seq = %s AND EXISTS (SELECT 1 FROM owned) "
"""The journal row of a write, after :data:`OWNED` (parameters: run id, seq): none unless the fence holds.

The row is found by the run id and seq given, never by a join with ``owned``: a prepared
statement keeps its generic plan, and a plan made while the journal was small joined the CTE to
a sequential scan of the whole journal (each effect then read every row of every run).
"""

COMPLETE = "UPDATE journal SET outcome = %s, at = %s " + ENTRY
"""Completing a started row, after :data:`OWNED` (parameters: outcome, at, run id, seq)."""
_INSERT = "INSERT INTO journal(run_id, seq, digest, ticks, outcome, at, waiting, summary, effect) "
_VALUES = "%s, %s::bytea, %s::bytea, %s::bytea, %s::double precision, %s, %s::text, %s::bytea"


COMPLETE_OWNED = OWNED + COMPLETE + "AND outcome IS NULL"
_INSERT_OWNED = OWNED + _INSERT + f"SELECT id, {_VALUES} FROM owned"
_START_AFTER_DONE = (
    OWNED
    + ", done AS ("
    + COMPLETE
    + "AND outcome IS NULL RETURNING journal.seq) "
    + _INSERT
    + f"SELECT owned.id, {_VALUES} FROM owned, done"
)


def complete_op(run_id: str, owner: str, row: JournalRow) -> Statement:
    """Complete the started row ``row.seq`` with ``row.outcome``, fenced by ownership."""
    return Statement(COMPLETE_OWNED, (run_id, owner, row.outcome, row.at, run_id, row.seq))


def _values(row: JournalRow, outcome: bytes | None) -> tuple[object, ...]:
    return (row.seq, row.digest, pack_ticks(row.ticks), outcome, row.at, row.waiting, row.summary, row.effect)


def insert_op(
    run_id: str, owner: str, row: JournalRow, outcome: bytes | None, create: NewRun | None
) -> Statement:
    """Insert ``row`` with ``outcome`` (after storing ``create``, the run itself), fenced by ownership.

    With ``create`` the run's row is inserted by the same statement (a CTE), and the journal
    row goes to the run just created: its owner is ``create.owner``.
    """
    if create is None:
        return Statement(_INSERT_OWNED, (run_id, owner, *_values(row, outcome)))
    return Statement(
        f"WITH owned AS (INSERT INTO runs({NEW_RUN_COLUMNS}) VALUES ({_MARKS}) RETURNING id) "
        + _INSERT
        + f"SELECT id, {_VALUES} FROM owned",
        (*new_run_values(create), *_values(row, outcome)),
    )


def journal_op(run_id: str, owner: str, row: JournalRow, started: bool, create: NewRun | None) -> Statement:
    """The write of ``row``: complete a started row (``started`` and an outcome), or insert it (fenced)."""
    return complete_op(run_id, owner, row) if started else insert_op(run_id, owner, row, row.outcome, create)


def start_op(run_id: str, owner: str, row: JournalRow, create: NewRun | None, done: JournalRow | None) -> Op:
    """Insert the started row ``row``, after completing ``done`` (the effect before), in one statement.

    If completing ``done`` writes no row (another owner, or no such started row) the insert
    writes none either: it selects from what the completion returned.
    """
    if done is None:
        return insert_op(run_id, owner, row, None, create)
    if create is not None:  # a run not stored has no started row: keep the two writes' exact order
        return after(complete_op(run_id, owner, done), insert_op(run_id, owner, row, None, create))
    return Statement(
        _START_AFTER_DONE, (run_id, owner, done.outcome, done.at, run_id, done.seq, *_values(row, None))
    )


def run_group(pool: ConnectionPool[Db], where: Where, ops: list[Op]) -> list[Result[int, StoreFailure]]:
    """Run ``ops`` in one transaction; every result is known once it committed.

    A group of one statement is run alone on the autocommit connection: one round trip. A group
    of statements is sent in one pipeline, all of them and then a sync, so the server runs them
    as one implicit transaction: one round trip, one commit. If one of them fails the server
    runs none of the rest and rolls that transaction back, so nothing was written: the group is
    then written again one op at a time, each in a savepoint, and the failing op fails alone.
    Without pipeline mode (a libpq older than 14) every group is written that way.
    """
    try:
        with pool.connection() as db:
            if len(ops) == 1 and isinstance(ops[0], Statement):
                return [Success(ops[0](db))]
            statements = [op for op in ops if isinstance(op, Statement)]
            if len(statements) == len(ops) and psycopg.Pipeline.is_supported():  # libpq 14 or later
                written = _pipelined(db, statements)
                if written is not None:
                    return [Success(count) for count in written]
            return _one_at_a_time(db, where, ops)
    except psycopg.Error as exc:  # the transaction did not commit: no write of the group did
        return [Failure(where.failure("commit effect", exc))] * len(ops)


def _pipelined(db: Db, statements: list[Statement]) -> list[int] | None:
    """The rows each statement wrote, all sent at once and committed at the sync; None if one failed.

    After a failure the server has skipped the statements after the failing one, some of which
    psycopg may have counted as prepared: ``DEALLOCATE ALL`` makes it forget them all (it
    prepares them again as they are used).
    """
    cursors = []
    failed = False
    try:
        with db.pipeline():
            for statement in statements:
                try:
                    cursors.append(db.cursor().execute(statement.sql, statement.params))
                except psycopg.Error:  # its failure came back early: the rest will not run
                    failed = True
                    break
    except psycopg.Error:  # the implicit transaction was rolled back: nothing of the group was written
        failed = True
    if failed:
        db.execute("DEALLOCATE ALL")
        return None
    return [cursor.rowcount for cursor in cursors]


def _one_at_a_time(db: Db, where: Where, ops: list[Op]) -> list[Result[int, StoreFailure]]:
    results: list[Result[int, StoreFailure]] = []
    with db.transaction():
        for op in ops:
            try:
                with db.transaction():  # a savepoint: a refused write fails this op alone
                    results.append(Success(op(db)))
            except psycopg.Error as exc:
                results.append(Failure(where.failure("commit effect", exc)))
    return results
