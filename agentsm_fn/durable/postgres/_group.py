"""The PostgreSQL store's journal writes as operations, and writing a group of them in one transaction.

Every write is fenced by ownership and takes the run's row ``FOR SHARE``: a concurrent
``claim`` (which updates that row) waits for the write to commit, or the write waits for the
claim and then finds another owner and writes nothing. So a process that lost its run can
never write into it, even while another process is taking it over. The group commit itself
(which writes go together) is :mod:`agentsm_fn.durable._group`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import psycopg
from returns.result import Failure, Result, Success

from agentsm_fn.durable._group import after
from agentsm_fn.durable._rows import NEW_RUN_COLUMNS, new_run_values, pack_ticks
from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.store import JournalRow, NewRun

if TYPE_CHECKING:
    from psycopg_pool import ConnectionPool

    from agentsm_fn.durable.postgres._connection import Where

__all__ = ["OWNED", "Op", "after_done", "complete_op", "insert_op", "insert_run", "journal_op", "run_group"]

Db = psycopg.Connection[tuple[object, ...]]

Op = Callable[[Db], int]
"""One journal write: statements run inside the caller's transaction; returns the rows it wrote."""

OWNED = "WITH owned AS (SELECT id FROM runs WHERE id = %s AND owner = %s FOR SHARE) "
"""The ownership fence every journal write starts with (parameters: run id, owner)."""


_MARKS = ", ".join(["%s"] * len(NEW_RUN_COLUMNS.split(",")))


def insert_run(db: Db, run: NewRun) -> None:
    """Store ``run`` (RUNNING, owned by ``run.owner``) in the caller's transaction."""
    db.execute(f"INSERT INTO runs({NEW_RUN_COLUMNS}) VALUES ({_MARKS})", new_run_values(run))


def complete_op(run_id: str, owner: str, row: JournalRow) -> Op:
    """Complete the started row ``row.seq`` with ``row.outcome``, fenced by ownership."""

    def complete(db: Db) -> int:
        return db.execute(
            OWNED + "UPDATE journal SET outcome = %s, at = %s FROM owned "
            "WHERE journal.run_id = owned.id AND seq = %s AND outcome IS NULL",
            (run_id, owner, row.outcome, row.at, row.seq),
        ).rowcount

    return complete


def insert_op(run_id: str, owner: str, row: JournalRow, outcome: bytes | None, create: NewRun | None) -> Op:
    """Insert ``row`` with ``outcome`` (after storing ``create``, the run itself), fenced by ownership."""

    def insert(db: Db) -> int:
        if create is not None:
            insert_run(db, create)
        return db.execute(
            OWNED + "INSERT INTO journal(run_id, seq, digest, ticks, outcome, at, waiting, summary, effect) "
            "SELECT id, %s, %s::bytea, %s::bytea, %s::bytea, %s::double precision, %s, %s::text, %s::bytea "
            "FROM owned",
            (
                run_id,
                owner,
                row.seq,
                row.digest,
                pack_ticks(row.ticks),
                outcome,
                row.at,
                row.waiting,
                row.summary,
                row.effect,
            ),
        ).rowcount

    return insert


def journal_op(run_id: str, owner: str, row: JournalRow, started: bool, create: NewRun | None) -> Op:
    """The write of ``row``: complete a started row (``started`` and an outcome), or insert it (fenced)."""
    return complete_op(run_id, owner, row) if started else insert_op(run_id, owner, row, row.outcome, create)


def after_done(run_id: str, owner: str, done: JournalRow | None, op: Op) -> Op:
    """``op`` preceded by completing ``done`` (the effect before): nothing more is written if that fails."""
    return op if done is None else after(complete_op(run_id, owner, done), op)


def run_group(pool: ConnectionPool[Db], where: Where, ops: list[Op]) -> list[Result[int, StoreFailure]]:
    """Run ``ops`` in one transaction, each in a savepoint; every result is known once it committed."""
    results: list[Result[int, StoreFailure]] = []
    try:
        with pool.connection() as db, db.transaction():
            for op in ops:
                try:
                    with db.transaction():  # a savepoint: a refused write fails this op alone
                        results.append(Success(op(db)))
                except psycopg.Error as exc:
                    results.append(Failure(where.failure("commit effect", exc)))
    except psycopg.Error as exc:  # the transaction did not commit: no write of the group did
        return [Failure(where.failure("commit effect", exc))] * len(ops)
    return results
