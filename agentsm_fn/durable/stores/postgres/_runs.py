"""The run records of a PostgresStore: runs, leases, trace contexts, checkpoints."""

from __future__ import annotations

from returns.result import Failure, Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.postgres._connection import PostgresConnection
from agentsm_fn.durable.stores.postgres._group import COMPLETE, OWNED, Db, complete_op, insert_run
from agentsm_fn.durable.stores.protocol.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus
from agentsm_fn.durable.stores.sql.group import LOST
from agentsm_fn.durable.stores.sql.rows import (
    checkpoint_values,
    claimed,
    holder,
    pack_ticks,
)

__all__ = ["PostgresRuns"]


class PostgresRuns(PostgresConnection):
    """Reading and writing run records (see :mod:`agentsm_fn.durable.stores.postgres` for the whole store)."""

    def claim(
        self, run_id: str, owner: str, now: float, until: float
    ) -> Result[None, RunBusy | StoreFailure]:
        """Make ``owner`` the run's owner unless another live owner holds it (its row locked meanwhile)."""

        def work(db: Db) -> str:
            row = db.execute(
                "SELECT owner, lease_until FROM runs WHERE id = %s FOR UPDATE", (run_id,)
            ).fetchone()
            held = holder(row, owner, now)
            if not held:
                db.execute(
                    "UPDATE runs SET owner = %s, lease_until = %s, status = CASE WHEN status = 'ready' "
                    "THEN 'running' ELSE status END, updated = CASE WHEN status = 'ready' "
                    "THEN GREATEST(updated, %s) ELSE updated END WHERE id = %s",  # a new status: an update
                    (owner, until, now, run_id),
                )
            return held

        return claimed(self._do("claim run", work, run_id), run_id)

    def save_checkpoint(
        self, run_id: str, checkpoint: Checkpoint, owner: str
    ) -> Result[None, RunBusy | StoreFailure]:
        """Store a checkpoint (replacing the older one), fenced by ownership."""

        def work(db: Db) -> int:
            return db.execute(
                OWNED + "INSERT INTO checkpoints(run_id, seq, state, steps, memory, pending) "
                "SELECT id, %s, %s, %s, %s::bytea, %s::bytea FROM owned ON CONFLICT (run_id) DO UPDATE SET "
                "seq = excluded.seq, state = excluded.state, steps = excluded.steps, "
                "memory = excluded.memory, pending = excluded.pending",
                (run_id, owner, *checkpoint_values(checkpoint)),
            ).rowcount

        saved = self._do("save checkpoint", work, run_id, one_statement=True)
        return self._fenced(saved, run_id)

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
        A WAITING run whose answer arrived meanwhile stops as READY. ``create``: the run itself, if
        it stopped before writing any journal row; ``done``: the last effect's outcome, completing
        its started row. All in one transaction; nothing is written if ``done`` is not (RunBusy).
        """
        waiting = record.status is RunStatus.WAITING
        values = (
            waiting,
            run_id,
            record.effects,
            record.status.value,
            record.state,
            record.steps,
            record.effects,
            record.reason,
            pack_ticks(tail),
            record.updated,
            record.fingerprint,
            run_id,
            owner,
        )
        if done is not None and create is None and not (waiting and done.seq == record.effects):
            # One statement: the held outcome completed (fenced) and the run stopped only if it was.
            completed = (run_id, owner, done.outcome, done.at, run_id, done.seq)
            stopped = self._do(
                "stop run",
                lambda db: db.write(_STOP_AFTER_DONE, (*completed, *values)),
                run_id,
                one_statement=True,
            )
            return self._fenced(stopped, run_id)

        def work(db: Db) -> None:
            if create is not None:
                insert_run(db, create)
            if done is not None and not complete_op(run_id, owner, done)(db):
                raise _Lost
            db.execute(_STOP, values)

        try:
            return self._do("stop run", work, run_id, one_statement=create is None and done is None)
        except _Lost:  # raised inside the transaction, so it rolled back
            return Failure(RunBusy(run_id=run_id, owner=LOST))


_STOP = (
    "UPDATE runs SET status = CASE WHEN %s AND EXISTS (SELECT 1 FROM journal WHERE run_id = %s "
    "AND waiting AND outcome IS NOT NULL AND seq = %s) THEN 'ready' ELSE %s END, "
    "state = %s, steps = %s, effects = %s, reason = %s, tail = %s, updated = %s, owner = NULL, "
    "lease_until = NULL, fingerprint = COALESCE(NULLIF(%s, ''), fingerprint) "
    "WHERE id = %s AND (owner = %s OR owner IS NULL)"
)
"""Where the run stopped, and its release (a WAITING run whose answer arrived meanwhile: READY)."""

_STOP_AFTER_DONE = (
    f"{OWNED}, done AS ({COMPLETE}AND outcome IS NULL RETURNING journal.seq) "
    f"{_STOP} AND EXISTS (SELECT 1 FROM done)"
)
""":data:`_STOP` after completing the held outcome, in one statement: nothing if that wrote no row.

The stop's check of the waiting entry reads the journal as it was before the statement: it never
reads the entry completed here (a WAITING run's waiting entry is not the held outcome's).
"""


class _Lost(Exception):
    """The run's last outcome found no started row of this owner to complete: write nothing."""
