"""What every store reads, in SQL both SQLite and PostgreSQL run alike (``?`` marks a parameter).

A store's reads never lock, never fence and never differ between the databases, so they are
written once here; each store brings :meth:`StoreReads._query`, which runs one statement in its
own way and builds the result inside the query (a corrupt row is then a ``StoreFailure``). The
writes both databases make alike are in :mod:`agentsm_fn.durable.stores.sql.writes`; fenced journal writes,
claims, stops and the group commit differ: they live in each store's subpackage.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar

from returns.result import Result

from agentsm_fn.durable.errors import RunNotFound, StoreFailure
from agentsm_fn.durable.stores.protocol.pages import RunQuery
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, RunRecord
from agentsm_fn.durable.stores.protocol.updates import Updates
from agentsm_fn.durable.stores.sql.rows import (
    RUN_COLUMNS,
    built,
    carrier_from,
    checkpoint_from,
    found_run,
    record_from,
    row_from,
    unpack_ticks,
)

__all__ = ["Rows", "StoreReads", "comparable"]

T = TypeVar("T")

Rows = list[tuple[object, ...]]
"""What one statement returned."""

_MOST = 2**63 - 1
"""The largest LIMIT both databases take."""

_JOURNAL_COLUMNS = "seq, digest, ticks, outcome, at, waiting, summary, effect"


_INTEGER = range(-(2**63), 2**63)
"""The ints an SQLite INTEGER holds."""


def comparable(value: object) -> object:
    """``value`` as a query binds it: an int beyond SQLite's INTEGER compares as the REAL it is near.

    So a seq or step no stored row can have matches no row, on either database, instead of failing to bind.

    Example:
        >>> comparable(3), comparable(10**20)
        (3, 1e+20)
    """
    return float(value) if isinstance(value, int) and value not in _INTEGER else value


def _first(build: Callable[[tuple[object, ...]], T]) -> Callable[[Rows], T | None]:
    return lambda rows: built(rows[0] if rows else None, build)


class StoreReads:
    """The reads of a :class:`~agentsm_fn.durable.stores.protocol.store.RunStore`, over :meth:`_query`."""

    def _query(
        self,
        operation: str,
        sql: str,
        params: tuple[object, ...],
        build: Callable[[Rows], T],
        run_id: str = "",
    ) -> Result[T, StoreFailure]:
        """``build`` of the rows ``sql`` returns, in one transaction; a database error is a StoreFailure."""
        raise NotImplementedError  # each store runs statements its own way

    def get(self, run_id: str) -> Result[RunRecord, RunNotFound | StoreFailure]:
        """The run's record."""
        sql = f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?"
        return found_run(self._query("read run", sql, (run_id,), _first(record_from), run_id), run_id)

    def runs(self, unfinished_only: bool = False) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """Every run (or every unfinished one), newest first."""
        where = "WHERE status NOT IN ('finished', 'cancelled')" if unfinished_only else ""
        sql = f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY created DESC, id"
        return self._query("list runs", sql, (), lambda rows: tuple(map(record_from, rows)))

    def page(self, query: RunQuery) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """One page of runs (``stores.protocol.pages``): one query on the ``(created, id)`` index."""
        where: list[str] = []
        args: list[object] = []
        if query.status is not None:
            where.append("status = ?")
            args.append(query.status.value)
        if query.machine is not None:
            where.append("machine = ?")
            args.append(query.machine)
        if query.after is not None:
            where.append("(created < ? OR (created = ? AND id > ?))")
            args.extend((query.after[0], query.after[0], query.after[1]))
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        sql = f"SELECT {RUN_COLUMNS} FROM runs {clause} ORDER BY created DESC, id LIMIT ?"
        limit = max(0, min(query.limit, _MOST))
        return self._query("list runs", sql, (*args, limit), lambda rows: tuple(map(record_from, rows)))

    def updated_since(self, after: tuple[float, str], limit: int) -> Result[Updates, StoreFailure]:
        """The runs updated after ``after`` and the count (``stores.protocol.updates``): one statement.

        One statement reads both in one snapshot, on the ``(updated, id)`` index; with no run
        updated, the outer join still gives the count (one row of NULL columns). The count is
        ``meta``'s ``run_count`` rows, kept by the schema's triggers: a few rows, not ``runs``.
        """
        sql = (
            "SELECT n.total, r.* FROM (SELECT CAST(coalesce(sum(CAST(value AS BIGINT)), 0) AS BIGINT) "
            "AS total FROM meta WHERE substr(key, 1, 9) = 'run_count') AS n LEFT JOIN "
            f"(SELECT {RUN_COLUMNS} FROM runs WHERE (updated, id) > (?, ?) ORDER BY updated, id LIMIT ?) "
            "AS r ON 1 = 1 ORDER BY r.updated, r.id"
        )
        limit = max(0, min(limit, _MOST))

        def build(rows: Rows) -> Updates:
            total = int(rows[0][0]) if rows else 0  # type: ignore[call-overload]  # a BIGINT sum
            found = tuple(record_from(row[1:]) for row in rows if row[1] is not None)
            return Updates(records=found, total=total)

        return self._query("read updated runs", sql, (after[0], after[1], limit), build)

    def forks(self, parent: str) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """The runs forked from ``parent``, newest first (``operations.forks``): on an index."""
        sql = f"SELECT {RUN_COLUMNS} FROM runs WHERE parent = ? ORDER BY created DESC, id"
        return self._query("list forks", sql, (parent,), lambda rows: tuple(map(record_from, rows)), parent)

    def initial_memory(self, run_id: str) -> Result[bytes, RunNotFound | StoreFailure]:
        """The encoded memory the run started from."""
        memory = _first(lambda row: bytes(row[0]))  # type: ignore[call-overload]  # a BLOB column
        return found_run(
            self._query("read memory", "SELECT memory FROM runs WHERE id = ?", (run_id,), memory), run_id
        )

    def start(self, run_id: str) -> Result[tuple[str, int], StoreFailure]:
        """The state and transition count a fork starts at (``("", 0)``: the machine's initial state)."""

        def start_of(rows: Rows) -> tuple[str, int]:
            if not rows or not rows[0][0]:
                return ("", 0)
            state, steps = rows[0]
            return str(state), int(steps or 0)  # type: ignore[call-overload]  # an INTEGER column

        sql = "SELECT start_state, start_steps FROM runs WHERE id = ?"
        return self._query("read start", sql, (run_id,), start_of, run_id)

    def journal(self, run_id: str, start: int = 0) -> Result[tuple[JournalRow, ...], StoreFailure]:
        """The run's journal rows from ``seq == start`` on, in order."""
        sql = f"SELECT {_JOURNAL_COLUMNS} FROM journal WHERE run_id = ? AND seq >= ? ORDER BY seq"
        return self._query(
            "read journal", sql, (run_id, start), lambda rows: tuple(map(row_from, rows)), run_id
        )

    def tail(self, run_id: str) -> Result[tuple[float, ...], StoreFailure]:
        """Clock readings taken after the last effect, written when the run stopped."""
        ticks = _first(lambda row: unpack_ticks(row[0], "tail"))  # type: ignore[arg-type]  # a BLOB column
        found = self._query("read tail", "SELECT tail FROM runs WHERE id = ?", (run_id,), ticks, run_id)
        return found.map(lambda read: read or ())

    def checkpoint(self, run_id: str) -> Result[Checkpoint | None, StoreFailure]:
        """The latest checkpoint, if any."""
        sql = "SELECT seq, state, steps, memory, pending FROM checkpoints WHERE run_id = ?"
        return self._query(
            "read checkpoint", sql, (run_id,), lambda rows: checkpoint_from(rows[0] if rows else None), run_id
        )

    def trace_context(self, run_id: str) -> Result[Mapping[str, str], StoreFailure]:
        """The run's trace context, ``{}`` if none; stored data that is not a mapping of strings fails.

        Example:
            >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
            >>> store = SqliteStore.open(":memory:").unwrap()
            >>> store.save_trace_context("r1", {"traceparent": "00-ab-cd-01"}).unwrap()
            >>> dict(store.trace_context("r1").unwrap()), dict(store.trace_context("r2").unwrap())
            ({'traceparent': '00-ab-cd-01'}, {})
            >>> store.close()
        """
        sql = "SELECT carrier FROM trace_contexts WHERE run_id = ?"
        found = self._query(
            "read trace context", sql, (run_id,), lambda rows: rows[0] if rows else None, run_id
        )
        return carrier_from(found, run_id)

    def waiting(self) -> Result[tuple[tuple[str, JournalRow], ...], StoreFailure]:
        """Every effect that waits for an answer: (run id, its journal row), oldest run first."""
        sql = (
            "SELECT j.run_id, j.seq, j.digest, j.ticks, j.outcome, j.at, j.waiting, j.summary, j.effect "
            "FROM journal j JOIN runs r ON r.id = j.run_id "
            "WHERE j.waiting AND j.outcome IS NULL AND r.status NOT IN ('finished', 'cancelled') "
            "ORDER BY r.created, j.run_id"
        )
        return self._query(
            "list waiting", sql, (), lambda rows: tuple((str(r[0]), row_from(r[1:], str(r[0]))) for r in rows)
        )
