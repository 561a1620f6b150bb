"""The run records of a SqliteStore: runs, leases, trace contexts, checkpoints."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping

from returns.result import Failure, Result, Success

from agentsm_fn.durable._rows import (
    RUN_COLUMNS,
    built,
    carrier_from,
    carrier_text,
    checkpoint_from,
    claimed,
    found_run,
    holder,
    pack_ticks,
    record_from,
    row_from,
    unpack_ticks,
)
from agentsm_fn.durable.errors import RunBusy, RunNotFound, StoreFailure
from agentsm_fn.durable.pages import RunQuery
from agentsm_fn.durable.sqlite._connection import SqliteConnection
from agentsm_fn.durable.sqlite._group import complete_op
from agentsm_fn.durable.sqlite._rows import insert_run, transaction
from agentsm_fn.durable.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus

__all__ = ["SqliteRuns"]


class SqliteRuns(SqliteConnection):
    """Reading and writing run records (see :mod:`agentsm_fn.durable.sqlite` for the whole store)."""

    def save_trace_context(self, run_id: str, carrier: Mapping[str, str]) -> Result[None, StoreFailure]:
        """Keep ``carrier`` as the run's trace context, unless it has one (the first is kept)."""
        text = carrier_text(carrier)

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR IGNORE INTO trace_contexts(run_id, carrier) VALUES (?, ?)", (run_id, text))

        return self._do("save trace context", work, run_id)

    def trace_context(self, run_id: str) -> Result[Mapping[str, str], StoreFailure]:
        """The run's trace context, ``{}`` if none; stored data that is not a mapping of strings fails.

        Example:
            >>> from agentsm_fn.durable.sqlite import SqliteStore
            >>> store = SqliteStore.open(":memory:").unwrap()
            >>> store.save_trace_context("r1", {"traceparent": "00-ab-cd-01"}).unwrap()
            >>> dict(store.trace_context("r1").unwrap()), dict(store.trace_context("r2").unwrap())
            ({'traceparent': '00-ab-cd-01'}, {})
        """
        found = self._do(
            "read trace context",
            lambda db: db.execute(
                "SELECT carrier FROM trace_contexts WHERE run_id = ?", (run_id,)
            ).fetchone(),
            run_id,
        )
        return carrier_from(found, run_id)

    def create(self, run: NewRun) -> Result[None, StoreFailure]:
        """Store a new run (status RUNNING, owned by ``run.owner``).

        A durable run does not call this: its run row is written with its first journal row
        (or when it stops), in the same transaction, saving one commit per run.
        """

        def work(db: sqlite3.Connection) -> None:
            insert_run(db, run)

        return self._do("create run", work, run.run_id)

    def get(self, run_id: str) -> Result[RunRecord, RunNotFound | StoreFailure]:
        """The run's record."""
        found = self._do(
            "read run",
            lambda db: built(
                db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone(), record_from
            ),
            run_id,
        )
        return found_run(found, run_id)

    def runs(self, unfinished_only: bool = False) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """Every run (or every unfinished one), newest first."""
        where = "WHERE status != 'finished'" if unfinished_only else ""
        return self._do(
            "list runs",
            lambda db: tuple(
                record_from(r)
                for r in db.execute(f"SELECT {RUN_COLUMNS} FROM runs {where} ORDER BY created DESC, id")
            ),
        )

    def page(self, query: RunQuery) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """One page of runs (:mod:`agentsm_fn.durable.pages`): one query on the ``(created, id)`` index."""
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
        return self._do(
            "list runs", lambda db: tuple(record_from(r) for r in db.execute(sql, (*args, query.limit)))
        )

    def initial_memory(self, run_id: str) -> Result[bytes, RunNotFound | StoreFailure]:
        """The encoded memory the run started from."""
        found = self._do(
            "read memory",
            lambda db: built(
                db.execute("SELECT memory FROM runs WHERE id = ?", (run_id,)).fetchone(),
                lambda row: bytes(row[0]),  # type: ignore[call-overload]  # a BLOB column
            ),
            run_id,
        )
        return found_run(found, run_id)

    def start(self, run_id: str) -> Result[tuple[str, int], StoreFailure]:
        """The state and transition count a fork starts at (``("", 0)``: the machine's initial state)."""
        found = self._do(
            "read start",
            lambda db: db.execute(
                "SELECT start_state, start_steps FROM runs WHERE id = ?", (run_id,)
            ).fetchone(),
            run_id,
        )
        return found.map(
            lambda row: ("", 0) if row is None or not row[0] else (str(row[0]), int(row[1] or 0))
        )

    def journal(self, run_id: str, start: int = 0) -> Result[tuple[JournalRow, ...], StoreFailure]:
        """The run's journal rows from ``seq == start`` on, in order."""
        return self._do(
            "read journal",
            lambda db: tuple(
                row_from(r)
                for r in db.execute(
                    "SELECT seq, digest, ticks, outcome, at, waiting, summary, effect FROM journal "
                    "WHERE run_id = ? AND seq >= ? ORDER BY seq",
                    (run_id, start),
                )
            ),
            run_id,
        )

    def tail(self, run_id: str) -> Result[tuple[float, ...], StoreFailure]:
        """Clock readings taken after the last effect, written when the run stopped."""

        def work(db: sqlite3.Connection) -> tuple[float, ...]:
            row = db.execute("SELECT tail FROM runs WHERE id = ?", (run_id,)).fetchone()
            return () if row is None else unpack_ticks(row[0], "tail")

        return self._do("read tail", work, run_id)

    def checkpoint(self, run_id: str) -> Result[Checkpoint | None, StoreFailure]:
        """The latest checkpoint, if any."""

        def work(db: sqlite3.Connection) -> Checkpoint | None:
            return checkpoint_from(
                db.execute(
                    "SELECT seq, state, steps, memory, pending FROM checkpoints WHERE run_id = ?", (run_id,)
                ).fetchone()
            )

        return self._do("read checkpoint", work, run_id)

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
                    "THEN 'running' ELSE status END WHERE id = ?",
                    (owner, until, run_id),
                )
                return ""

        return claimed(self._do("claim run", work, run_id), run_id)

    def save_checkpoint(self, run_id: str, checkpoint: Checkpoint) -> Result[None, StoreFailure]:
        """Store a checkpoint (replacing the older one)."""
        return self._do(
            "save checkpoint",
            lambda db: db.execute(
                "INSERT OR REPLACE INTO checkpoints(run_id, seq, state, steps, memory, pending) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    checkpoint.seq,
                    checkpoint.state,
                    checkpoint.steps,
                    checkpoint.memory,
                    checkpoint.pending,
                ),
            ),
            run_id,
        ).map(lambda _: None)

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
            return Failure(RunBusy(run_id=run_id, owner="another process (this one no longer owns the run)"))
        return stopped.map(lambda _: None)
