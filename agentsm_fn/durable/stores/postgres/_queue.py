"""The queue of a PostgresStore: claims with ``FOR UPDATE SKIP LOCKED``, wake-ups with ``LISTEN``/``NOTIFY``.

A claim locks the candidate rows it reads and skips those another claimant holds locked, so
workers on any number of hosts never take the same run and never wait for each other. A run
that becomes READY (enqueued, answered, let go) notifies the channel ``agentsm_runs`` from a
trigger in the same transaction (the notification is sent when it commits), and a worker waits
on that channel on a connection of its own: no polling, but for runs orphaned by a lease that
ran out, which nothing announces (the worker looks again after its ``poll`` timeout).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

import psycopg
from returns.result import Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.postgres._connection import PostgresConnection
from agentsm_fn.durable.stores.postgres._group import Db
from agentsm_fn.durable.stores.protocol.owners import owner_alive
from agentsm_fn.durable.stores.protocol.queue import Wakeups
from agentsm_fn.durable.stores.protocol.store import RunRecord
from agentsm_fn.durable.stores.sql.rows import RUN_COLUMNS, record_from

__all__ = ["CHANNEL", "QUEUE_SCHEMA", "PostgresQueue"]

CHANNEL = "agentsm_runs"
"""The channel a run that becomes READY is announced on (the payload: its machine's name)."""

QUEUE_SCHEMA = (
    f"""CREATE OR REPLACE FUNCTION agentsm_run_ready() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_notify('{CHANNEL}', NEW.machine); RETURN NULL; END $$""",
    """CREATE OR REPLACE TRIGGER agentsm_run_ready AFTER INSERT OR UPDATE OF status ON runs
    FOR EACH ROW WHEN (NEW.status = 'ready') EXECUTE FUNCTION agentsm_run_ready()""",
)
"""The trigger that notifies :data:`CHANNEL` when a run becomes READY (created with the tables)."""


class PostgresQueue(PostgresConnection):
    """Queueing and claiming runs (see :mod:`agentsm_fn.durable.stores.protocol.queue`)."""

    def claim_next(
        self, machines: tuple[str, ...], owner: str, now: float, until: float
    ) -> Result[RunRecord | None, StoreFailure]:
        """Make ``owner`` the owner of the oldest READY or orphaned run of ``machines`` none else claims."""
        if not machines:
            return Success(None)

        def work(db: Db) -> RunRecord | None:
            # The owners on this host whose process is gone: their runs are orphaned before their leases end.
            local = db.execute(
                "SELECT DISTINCT owner FROM runs WHERE status = 'running' AND owner LIKE %s "
                "AND machine = ANY(%s)",
                (f"{socket.gethostname()}:%", list(machines)),
            ).fetchall()
            dead = [str(owner) for (owner,) in local if not owner_alive(str(owner))]
            row = db.execute(
                f"SELECT {RUN_COLUMNS} FROM runs WHERE machine = ANY(%s) AND (status = 'ready' OR "
                "(status = 'running' AND (lease_until IS NULL OR lease_until <= %s OR owner = ANY(%s)))) "
                "ORDER BY created, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                (list(machines), now, dead),
            ).fetchone()
            if row is None:
                return None
            record = record_from(row)
            db.execute(
                "UPDATE runs SET status = 'running', owner = %s, lease_until = %s, updated = CASE "
                "WHEN status = 'ready' THEN GREATEST(updated, %s) ELSE updated END WHERE id = %s",
                (owner, until, now, record.run_id),
            )
            return record

        return self._do("claim run", work)

    @contextlib.asynccontextmanager
    async def listen(self) -> AsyncIterator[Wakeups]:
        """Listen on :data:`CHANNEL` on a connection of its own while the context is open.

        One task reads the notifications as they come and raises a flag; a wake-up returns once
        the flag is up (a notification since the previous wake-up) or after ``timeout``. If the
        listening connection cannot be opened or fails (the server went away), the wake-ups sleep
        ``timeout``: the worker polls until the context is opened again.
        """
        conninfo = self._pool.conninfo
        try:
            connection = await psycopg.AsyncConnection.connect(
                conninfo() if callable(conninfo) else conninfo, autocommit=True
            )
            await connection.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error:
            yield asyncio.sleep
            return
        flag = asyncio.Event()

        async def read() -> None:
            async for _ in connection.notifies():
                flag.set()

        reading = asyncio.create_task(read())

        async def wakeup(timeout: float) -> None:
            if reading.done():  # the connection failed: poll
                await asyncio.sleep(timeout)
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(flag.wait(), timeout)
            flag.clear()

        try:
            yield wakeup
        finally:
            reading.cancel()
            await asyncio.gather(reading, return_exceptions=True)
            await connection.close()
