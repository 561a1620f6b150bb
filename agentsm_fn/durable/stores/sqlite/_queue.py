"""The queue of a SqliteStore: claim the next READY or orphaned run (enqueue, renew: ``stores.sql.writes``).

SQLite serialises writers (``BEGIN IMMEDIATE``), so a claim reads and takes its run in one
transaction that no other claimant can interleave with. There is no notification between
processes: :meth:`SqliteQueue.listen` gives a sleep, and a worker polls.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sqlite3
from collections.abc import AsyncIterator

from returns.result import Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.owners import run_orphaned
from agentsm_fn.durable.stores.protocol.queue import Wakeups
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
from agentsm_fn.durable.stores.sql.rows import RUN_COLUMNS, record_from
from agentsm_fn.durable.stores.sqlite._connection import SqliteConnection
from agentsm_fn.durable.stores.sqlite._rows import transaction

__all__ = ["SqliteQueue"]


class SqliteQueue(SqliteConnection):
    """Queueing and claiming runs (see :mod:`agentsm_fn.durable.stores.protocol.queue`)."""

    def claim_next(
        self, machines: tuple[str, ...], owner: str, now: float, until: float
    ) -> Result[RunRecord | None, StoreFailure]:
        """Make ``owner`` the owner of the oldest READY or orphaned run of ``machines``; None if none."""
        if not machines:
            return Success(None)
        marks = ", ".join("?" for _ in machines)

        def work(db: sqlite3.Connection) -> RunRecord | None:
            with transaction(db):
                rows = db.execute(
                    f"SELECT {RUN_COLUMNS} FROM runs WHERE machine IN ({marks}) AND (status = 'ready' OR "
                    "(status = 'running' AND (lease_until IS NULL OR lease_until <= ? OR owner LIKE ?))) "
                    "ORDER BY created, id",
                    (*machines, now, f"{socket.gethostname()}:%"),
                )
                for row in rows.fetchall():
                    record = record_from(row)
                    running = record.status is RunStatus.RUNNING
                    if running and not run_orphaned(True, record.owner, record.lease_until, now):
                        continue  # a live process on this host runs it
                    db.execute(
                        "UPDATE runs SET status = 'running', owner = ?, lease_until = ?, updated = CASE "
                        "WHEN status = 'ready' THEN max(updated, ?) ELSE updated END WHERE id = ?",
                        (owner, until, now, record.run_id),
                    )
                    return record
                return None

        return self._do("claim run", work)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[Wakeups]:
        """Wake-ups that sleep ``timeout`` seconds: SQLite cannot notify another process, so workers poll."""
        yield asyncio.sleep
