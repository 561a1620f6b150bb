"""The connection of a SqliteStore: one lock, every query a typed result."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.sql.group import Groups, fenced
from agentsm_fn.durable.stores.sql.reads import Rows, comparable
from agentsm_fn.durable.stores.sql.rows import CorruptColumn
from agentsm_fn.durable.stores.sql.writes import Execute, StoreWrites
from agentsm_fn.durable.stores.sqlite._group import Op, run_group
from agentsm_fn.durable.stores.sqlite._rows import transaction

__all__ = ["SqliteConnection"]

T = TypeVar("T")


class SqliteConnection(StoreWrites):
    """One SQLite connection behind a lock; queries build on :meth:`_do`, shared ones on _query/_change."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self._lock = threading.Lock()
        self._groups: Groups[Op] = Groups(lambda ops: run_group(self._db, self._lock, ops))
        self.path = path

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._db.close()

    def _do(
        self, operation: str, work: Callable[[sqlite3.Connection], T], run_id: str = ""
    ) -> Result[T, StoreFailure]:
        with self._lock:
            try:
                return Success(work(self._db))
            except (sqlite3.Error, CorruptColumn, OverflowError) as exc:  # Overflow: an int no column holds
                return Failure(StoreFailure(operation=operation, detail=str(exc), run_id=run_id))

    def _fenced(self, done: Result[int, StoreFailure], run_id: str) -> Result[None, RunBusy | StoreFailure]:
        """A fenced write's result (``stores.sql.group.fenced``, with this database's words)."""
        return fenced(done, run_id, duplicate_run="runs.id", duplicate_entry="UNIQUE")

    def _query(
        self,
        operation: str,
        sql: str,
        params: tuple[object, ...],
        build: Callable[[Rows], T],
        run_id: str = "",
    ) -> Result[T, StoreFailure]:
        bound = tuple(map(comparable, params))
        return self._do(operation, lambda db: build(db.execute(sql, bound).fetchall()), run_id)

    def _change(
        self, operation: str, work: Callable[[Execute], T], run_id: str = "", one_statement: bool = False
    ) -> Result[T, StoreFailure]:
        def written(db: sqlite3.Connection) -> T:
            if one_statement:
                return work(db.execute)
            with transaction(db):
                return work(db.execute)

        return self._do(operation, written, run_id)
