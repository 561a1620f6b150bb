"""The connections of a PostgresStore: a psycopg pool, every query a typed result, no password shown.

Every failure's message is passed through :meth:`~agentsm_fn.durable.stores.postgres._where.Where.redact`,
and the database is named by what may be shown of it (``_where``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import psycopg
from psycopg_pool import ConnectionPool
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.postgres._group import Db, Op, run_group
from agentsm_fn.durable.stores.postgres._where import Where
from agentsm_fn.durable.stores.sql.group import Groups, fenced
from agentsm_fn.durable.stores.sql.reads import Rows
from agentsm_fn.durable.stores.sql.rows import CorruptColumn
from agentsm_fn.durable.stores.sql.writes import Execute, StoreWrites

__all__ = ["PostgresConnection"]

T = TypeVar("T")


class PostgresConnection(StoreWrites):
    """A pool of connections; the store's queries build on :meth:`_do`, one transaction each.

    A write that is one statement runs on the pool's autocommit connection without ``BEGIN``
    and ``COMMIT`` (``one_statement``): the statement is its own transaction, one round trip.
    """

    def __init__(self, pool: ConnectionPool[Db], at: Where) -> None:
        self._pool = pool
        self._where = at
        self._groups: Groups[Op] = Groups(lambda ops: run_group(pool, at, ops))

    def close(self) -> None:
        """Close every connection of the pool."""
        self._pool.close()

    def _do(
        self,
        operation: str,
        work: Callable[[Db], T],
        run_id: str = "",
        one_statement: bool = False,
    ) -> Result[T, StoreFailure]:
        try:
            # getconn/putconn rather than pool.connection(): its `with connection` adds a commit
            # call per statement, and the pool's putconn rolls back (or drops) what is left open.
            db = self._pool.getconn()
            try:
                if one_statement:  # autocommit: the statement is its own transaction
                    return Success(work(db))
                with db.transaction():
                    return Success(work(db))
            finally:
                self._pool.putconn(db)
        except (psycopg.Error, CorruptColumn) as exc:
            return Failure(self._where.failure(operation, exc, run_id))

    def _fenced(self, done: Result[int, StoreFailure], run_id: str) -> Result[None, RunBusy | StoreFailure]:
        """A fenced write's result (``stores.sql.group.fenced``, with this database's words)."""
        return fenced(done, run_id, duplicate_run='"runs_pkey"', duplicate_entry='"journal_pkey"')

    def _query(
        self,
        operation: str,
        sql: str,
        params: tuple[object, ...],
        build: Callable[[Rows], T],
        run_id: str = "",
    ) -> Result[T, StoreFailure]:
        """Run the shared reads' SQL (``?`` marks a parameter; psycopg's mark is ``%s``)."""
        return self._do(
            operation, lambda db: build(db.execute(sql.replace("?", "%s"), params).fetchall()), run_id
        )

    def _change(
        self, operation: str, work: Callable[[Execute], T], run_id: str = "", one_statement: bool = False
    ) -> Result[T, StoreFailure]:
        """Run the shared writes' SQL (``?`` marks a parameter; psycopg's mark is ``%s``)."""

        def written(db: Db) -> T:
            return work(lambda sql, params: db.execute(sql.replace("?", "%s"), params))

        return self._do(operation, written, run_id, one_statement)
