"""The connection of a SqliteStore: one lock, every query a typed result."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable._group import Groups
from agentsm_fn.durable._reads import Rows, StoreReads
from agentsm_fn.durable._rows import CorruptColumn
from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.sqlite._group import Op, run_group

__all__ = ["SqliteConnection", "comparable"]

T = TypeVar("T")

_INTEGER = range(-(2**63), 2**63)
"""The ints an SQLite INTEGER holds."""


def comparable(value: object) -> object:
    """``value`` as a query binds it: an int beyond SQLite's INTEGER compares as the REAL it is near.

    So a seq or step no stored row can have matches no row (as on PostgreSQL) instead of failing to bind.

    >>> comparable(3), comparable(10**20)
    (3, 1e+20)
    """
    return float(value) if isinstance(value, int) and value not in _INTEGER else value


class SqliteConnection(StoreReads):
    """One SQLite connection behind a lock; queries build on :meth:`_do`, shared reads on :meth:`_query`."""

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
