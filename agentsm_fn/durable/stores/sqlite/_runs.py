"""The run records of a SqliteStore: runs, leases, trace contexts, checkpoints."""

from __future__ import annotations

import sqlite3

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus
from agentsm_fn.durable.stores.sql.group import LOST
from agentsm_fn.durable.stores.sql.rows import (
    checkpoint_values,
    claimed,
    holder,
    pack_ticks,
)
from agentsm_fn.durable.stores.sqlite._connection import SqliteConnection
from agentsm_fn.durable.stores.sqlite._group import complete_op
from agentsm_fn.durable.stores.sqlite._rows import insert_run, transaction

__all__ = ["SqliteRuns"]


class SqliteRuns(SqliteConnection):
    """Reading and writing run records (see :mod:`agentsm_fn.durable.stores.sqlite` for the whole store)."""

    def claim(
        self, run_id: str, owner: str, now: float, until: float
    ) -> Result[None, RunBusy | StoreFailure]:
        """Make ``owner`` the run's owner unless another live owner holds it."""

        def work(db: sqlite3.Connection) -> str:
            with transaction(db):
                row = db.execute("SELECT owner, lease_until FROM runs WHERE id = ?", (run_id,)).fetchone()
                held = holder(row, owner, now)
                if held:
                    return held
                db.execute(
                    "UPDATE runs SET owner = ?, lease_until = ?, status = CASE WHEN status = 'ready' "
                    "THEN 'running' ELSE status END, updated = CASE WHEN status = 'ready' "
                    "THEN max(updated, ?) ELSE updated END WHERE id = ?",  # a changed status is an update
                    (owner, until, now, run_id),
                )
                return ""

        return claimed(self._do("claim run", work, run_id), run_id)

    def save_checkpoint(
        self, run_id: str, checkpoint: Checkpoint, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Store a checkpoint (replacing the older one), fenced by ownership."""

        def work(db: sqlite3.Connection) -> int:
            return db.execute(
                "INSERT OR REPLACE INTO checkpoints(run_id, seq, state, steps, memory, pending) "
                "SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
                (run_id, *checkpoint_values(checkpoint), run_id, owner),
            ).rowcount

        return self._fenced(self._do("save checkpoint", work, run_id), run_id)

    def stop(
        self,
        run_id: str,
        record: RunRecord,
        tail: tuple[float, ...],
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record where the run stopped (status, state, steps, effects, reason, tail) and release it.

        A non-empty ``record.fingerprint`` replaces the stored one (a changed machine ran the run on).

        ``create``: the run itself, if it stopped before writing any journal row; ``done``: the
        last effect's outcome, completing its started row. Both in the same transaction.
        """
        status = record.status.value
        if record.status is RunStatus.WAITING:  # answered meanwhile: ready to go on
            status_sql = (
                "CASE WHEN EXISTS (SELECT 1 FROM journal WHERE run_id = ? AND waiting = 1 AND outcome "
                "IS NOT NULL AND seq = ?) THEN 'ready' ELSE 'waiting' END"
            )
            status_args: tuple[object, ...] = (run_id, record.effects)
        else:
            status_sql, status_args = "?", (status,)

        def work(db: sqlite3.Connection) -> bool:
            with transaction(db):
                if create is not None:
                    insert_run(db, create)
                if done is not None and not complete_op(run_id, owner, done)(db):
                    return False
                db.execute(
                    f"UPDATE runs SET status = {status_sql}, state = ?, steps = ?, effects = ?, reason = ?, "
                    "tail = ?, updated = ?, owner = NULL, lease_until = NULL, "
                    "fingerprint = COALESCE(NULLIF(?, ''), fingerprint) "
                    "WHERE id = ? AND (owner = ? OR owner IS NULL)",
                    (
                        *status_args,
                        record.state,
                        record.steps,
                        record.effects,
                        record.reason,
                        pack_ticks(tail),
                        record.updated,
                        record.fingerprint,
                        run_id,
                        owner,
                    ),
                )
                return True

        stopped = self._do("stop run", work, run_id)
        if isinstance(stopped, Success) and not stopped.unwrap():
            return Failure(RunBusy(run_id=run_id, owner=LOST))
        return stopped.map(lambda _: None)
