"""The embedded store: one SQLite file (standard library ``sqlite3``, WAL), no server.

Every effect is one transaction: a row inserted (or a started row completed) in the
``journal`` table. Writes are fenced by ownership: a row is written only while the
writing process owns the run, so a process that lost its run (to ``recover`` after its
lease expired) cannot write into it. Several processes may open the same file; SQLite
serialises their writes and waits up to ``busy_timeout`` seconds for a lock.

``durability`` is SQLite's ``synchronous`` setting, in WAL mode:

* ``Durability.NORMAL`` (default): a commit is in the write-ahead log when it returns, but
  not yet flushed to the disk. It survives a killed process (SIGKILL, a crash, an
  out-of-memory kill): the operating system still writes the log. A power cut or an
  operating-system crash may lose the last commits (the file stays consistent).
* ``Durability.FULL``: every commit is flushed (``fsync``) before it returns, so it also
  survives a power cut; each commit then costs a disk flush.
"""

from __future__ import annotations

import asyncio
import enum
import json
import sqlite3
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable._group import GroupCommit, journal_op
from agentsm_fn.durable._owner import owner_alive
from agentsm_fn.durable._schema import SCHEMA, SCHEMA_VERSION
from agentsm_fn.durable._sqlite_rows import (
    RUN_COLUMNS,
    insert_run,
    pack_ticks,
    record_from,
    row_from,
    transaction,
    unpack_ticks,
)
from agentsm_fn.durable.errors import AnswerRefused, RunBusy, RunNotFound, StoreFailure
from agentsm_fn.durable.store import Checkpoint, JournalRow, NewRun, RunRecord, RunStatus

__all__ = ["Durability", "SqliteStore"]

T = TypeVar("T")


class Durability(enum.Enum):
    """SQLite's ``synchronous`` setting: what a committed effect survives (see the module doc)."""

    NORMAL = "NORMAL"
    """Survives a killed process; a power cut may lose the last commits."""
    FULL = "FULL"
    """Survives a power cut too; every commit waits for the disk."""


class SqliteStore:
    """A :class:`~agentsm_fn.durable.store.RunStore` in one SQLite file.

    Example:
        >>> import tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> store = SqliteStore.open(os.path.join(folder, "runs.db")).unwrap()
        >>> store.runs().unwrap()
        ()
        >>> store.close()
    """

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self._db = connection
        self._lock = threading.Lock()
        self._groups: dict[int, tuple[asyncio.AbstractEventLoop, GroupCommit]] = {}
        self.path = path

    @classmethod
    def open(
        cls, path: str | Path, durability: Durability = Durability.NORMAL, busy_timeout: float = 10.0
    ) -> Result[SqliteStore, StoreFailure]:
        """Open (or create) the store at ``path``.

        Example:
            >>> SqliteStore.open("/nonexistent/dir/runs.db").failure().operation
            'open'
        """
        try:
            db = sqlite3.connect(
                str(path), timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            return Failure(StoreFailure(operation="open", detail=f"{path}: {exc}"))
        try:
            db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
            db.execute("PRAGMA journal_mode = WAL")
            db.execute(f"PRAGMA synchronous = {durability.value}")
            with transaction(db):
                for statement in SCHEMA:
                    db.execute(statement)
                found = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
                if found is None:
                    db.execute("INSERT INTO meta(key, value) VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            if found is not None and found[0] != str(SCHEMA_VERSION):
                db.close()
                detail = f"{path} has schema {found[0]}; this version reads schema {SCHEMA_VERSION}"
                return Failure(StoreFailure(operation="open", detail=detail))
        except sqlite3.Error as exc:
            db.close()
            return Failure(StoreFailure(operation="open", detail=f"{path}: {exc}"))
        return Success(cls(db, str(path)))

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
            except sqlite3.Error as exc:
                return Failure(StoreFailure(operation=operation, detail=str(exc), run_id=run_id))

    # --- runs ---------------------------------------------------------------------------------

    def save_trace_context(self, run_id: str, carrier: Mapping[str, str]) -> Result[None, StoreFailure]:
        """Keep ``carrier`` as the run's trace context, unless it has one (the first is kept)."""
        text = json.dumps(dict(carrier), sort_keys=True)

        def work(db: sqlite3.Connection) -> None:
            db.execute("INSERT OR IGNORE INTO trace_contexts(run_id, carrier) VALUES (?, ?)", (run_id, text))

        return self._do("save trace context", work, run_id)

    def trace_context(self, run_id: str) -> Result[Mapping[str, str], StoreFailure]:
        """The run's trace context, ``{}`` if none; stored data that is not a mapping of strings fails.

        Example:
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
        if isinstance(found, Failure):
            return found
        row = found.unwrap()
        if row is None:
            return Success(MappingProxyType({}))
        try:
            value = json.loads(row[0])
        except (TypeError, ValueError) as exc:
            value = exc
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            detail = "the stored trace context is not a JSON object of strings"
            return Failure(StoreFailure(operation="read trace context", detail=detail, run_id=run_id))
        return Success(MappingProxyType(value))

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
            lambda db: db.execute(f"SELECT {RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone(),
            run_id,
        )
        if isinstance(found, Failure):
            return found
        row = found.unwrap()
        return Failure(RunNotFound(run_id=run_id)) if row is None else Success(record_from(row))

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

    def initial_memory(self, run_id: str) -> Result[bytes, RunNotFound | StoreFailure]:
        """The encoded memory the run started from."""
        found = self._do(
            "read memory",
            lambda db: db.execute("SELECT memory FROM runs WHERE id = ?", (run_id,)).fetchone(),
            run_id,
        )
        if isinstance(found, Failure):
            return found
        row = found.unwrap()
        return Failure(RunNotFound(run_id=run_id)) if row is None else Success(bytes(row[0]))

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
        found = self._do(
            "read tail",
            lambda db: db.execute("SELECT tail FROM runs WHERE id = ?", (run_id,)).fetchone(),
            run_id,
        )
        return found.map(lambda row: () if row is None else unpack_ticks(row[0]))

    def checkpoint(self, run_id: str) -> Result[Checkpoint | None, StoreFailure]:
        """The latest checkpoint, if any."""

        def work(db: sqlite3.Connection) -> Checkpoint | None:
            row = db.execute(
                "SELECT seq, state, steps, memory, pending FROM checkpoints WHERE run_id = ?", (run_id,)
            ).fetchone()
            if row is None:
                return None
            return Checkpoint(
                seq=row[0], state=row[1], steps=row[2], memory=bytes(row[3]), pending=bytes(row[4])
            )

        return self._do("read checkpoint", work, run_id)

    def claim(
        self, run_id: str, owner: str, now: float, until: float
    ) -> Result[None, RunBusy | StoreFailure]:
        """Make ``owner`` the run's owner unless another live owner holds it."""

        def work(db: sqlite3.Connection) -> str:
            with transaction(db):
                row = db.execute("SELECT owner, lease_until FROM runs WHERE id = ?", (run_id,)).fetchone()
                if row is None:
                    return "missing"
                held, lease = row
                if held and held != owner and float(lease or 0.0) > now and owner_alive(held):
                    return str(held)
                db.execute(
                    "UPDATE runs SET owner = ?, lease_until = ?, status = CASE WHEN status = 'ready' "
                    "THEN 'running' ELSE status END WHERE id = ?",
                    (owner, until, run_id),
                )
                return ""

        done = self._do("claim run", work, run_id)
        if isinstance(done, Failure):
            return done
        holder = done.unwrap()
        if holder == "missing":
            return Failure(StoreFailure(operation="claim run", detail="no such run", run_id=run_id))
        return Failure(RunBusy(run_id=run_id, owner=holder)) if holder else Success(None)

    # --- journal ------------------------------------------------------------------------------

    def start_effect(
        self, run_id: str, row: JournalRow, owner: str, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` is about to be performed (no outcome yet), fenced by ownership.

        ``create``: the run itself, not stored yet, written in the same transaction.
        """
        return self._write(run_id, owner, row, outcome=None, create=create)

    def commit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Commit an effect's outcome: complete its started row, or insert one (and ``create`` the run)."""
        if not started:
            return self._write(run_id, owner, row, outcome=row.outcome, create=create)

        def work(db: sqlite3.Connection) -> int:
            return db.execute(
                "UPDATE journal SET outcome = ?, at = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL "
                "AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
                (row.outcome, row.at, run_id, row.seq, run_id, owner),
            ).rowcount

        return self._fenced(self._do("commit effect", work, run_id), run_id)

    def _write(
        self, run_id: str, owner: str, row: JournalRow, outcome: bytes | None, create: NewRun | None
    ) -> Result[None, RunBusy | StoreFailure]:
        def insert(db: sqlite3.Connection) -> int:
            return db.execute(
                "INSERT INTO journal(run_id, seq, digest, ticks, outcome, at, waiting, summary, effect) "
                "SELECT ?, ?, ?, ?, ?, ?, ?, ?, ? "
                "WHERE EXISTS (SELECT 1 FROM runs WHERE id = ? AND owner = ?)",
                (
                    run_id,
                    row.seq,
                    row.digest,
                    pack_ticks(row.ticks),
                    outcome,
                    row.at,
                    int(row.waiting),
                    row.summary,
                    row.effect,
                    run_id,
                    owner,
                ),
            ).rowcount

        def work(db: sqlite3.Connection) -> int:
            if create is None:
                return insert(db)
            with transaction(db):
                insert_run(db, create)
                return insert(db)

        return self._fenced(self._do("commit effect", work, run_id), run_id)

    def _fenced(self, done: Result[int, StoreFailure], run_id: str) -> Result[None, RunBusy | StoreFailure]:
        if isinstance(done, Failure):
            failure = done.failure()
            if "runs.id" in failure.detail:
                return Failure(
                    StoreFailure(operation="create run", detail="a run with this id exists", run_id=run_id)
                )
            if "UNIQUE" in failure.detail:
                return Failure(RunBusy(run_id=run_id, owner="another process (it wrote this entry first)"))
            return Failure(failure)
        if done.unwrap() == 0:
            return Failure(RunBusy(run_id=run_id, owner="another process (this one no longer owns the run)"))
        return Success(None)

    async def astart_effect(
        self, run_id: str, row: JournalRow, owner: str, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`start_effect` for async runs: committed with the writes of other runs (group commit)."""
        return self._fenced(
            await self._grouped().submit(journal_op(run_id, owner, row, False, create)), run_id
        )

    async def acommit(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """:meth:`commit` for async runs: committed with the writes of other runs (group commit)."""
        op = journal_op(run_id, owner, row, started, None if started else create)
        return self._fenced(await self._grouped().submit(op), run_id)

    def _grouped(self) -> GroupCommit:
        loop = asyncio.get_running_loop()
        group = self._groups.get(id(loop))
        if group is None or group[0] is not loop:
            group = self._groups[id(loop)] = (loop, GroupCommit(self._db, self._lock))
        return group[1]

    def wait(
        self, run_id: str, row: JournalRow, owner: str, started: bool, create: NewRun | None = None
    ) -> Result[None, RunBusy | StoreFailure]:
        """Record that effect ``row.seq`` waits for an answer from outside (``row.effect`` says what)."""
        if not started:
            return self._write(run_id, owner, row, outcome=None, create=create)

        def work(db: sqlite3.Connection) -> int:
            return db.execute(
                "UPDATE journal SET waiting = 1, effect = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL",
                (row.effect, run_id, row.seq),
            ).rowcount

        return self._fenced(self._do("record wait", work, run_id), run_id)

    def answer(
        self, run_id: str, seq: int, outcome: bytes, at: float
    ) -> Result[None, AnswerRefused | StoreFailure]:
        """Commit the answer to a waiting effect, once: a second answer is refused."""

        def work(db: sqlite3.Connection) -> str:
            with transaction(db):
                updated = db.execute(
                    "UPDATE journal SET outcome = ?, at = ? WHERE run_id = ? AND seq = ? AND waiting = 1 "
                    "AND outcome IS NULL",
                    (outcome, at, run_id, seq),
                ).rowcount
                if updated:
                    db.execute(
                        "UPDATE runs SET status = 'ready', updated = ? WHERE id = ? AND status = 'waiting'",
                        (at, run_id),
                    )
                    return ""
                row = db.execute(
                    "SELECT waiting, outcome IS NOT NULL FROM journal WHERE run_id = ? AND seq = ?",
                    (run_id, seq),
                ).fetchone()
            if row is None:
                return f"run {run_id} has no entry {seq}"
            if not row[0]:
                return "that entry is not waiting for an answer"
            return "it was answered already"

        done = self._do("answer", work, run_id)
        if isinstance(done, Failure):
            return done
        why = done.unwrap()
        return Failure(AnswerRefused(run_id=run_id, seq=seq, why=why)) if why else Success(None)

    def forget(self, run_id: str, seq: int, keep_started: bool) -> Result[None, StoreFailure]:
        """Undo the outcome of entry ``seq`` (the machine did not take it): keep it as started, or drop it."""
        statement = (
            "UPDATE journal SET outcome = NULL, at = NULL WHERE run_id = ? AND seq = ?"
            if keep_started
            else "DELETE FROM journal WHERE run_id = ? AND seq = ?"
        )
        return self._do("forget outcome", lambda db: db.execute(statement, (run_id, seq)), run_id).map(
            lambda _: None
        )

    def waiting(self) -> Result[tuple[tuple[str, JournalRow], ...], StoreFailure]:
        """Every effect that waits for an answer: (run id, its journal row), oldest run first."""
        return self._do(
            "list waiting",
            lambda db: tuple(
                (str(r[0]), row_from(r[1:]))
                for r in db.execute(
                    "SELECT j.run_id, j.seq, j.digest, j.ticks, j.outcome, j.at, j.waiting, j.summary, "
                    "j.effect "
                    "FROM journal j JOIN runs r ON r.id = j.run_id "
                    "WHERE j.waiting = 1 AND j.outcome IS NULL ORDER BY r.created, j.run_id"
                )
            ),
        )

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
    ) -> Result[None, StoreFailure]:
        """Record where the run stopped (status, state, steps, effects, reason, tail) and release it.

        A non-empty ``record.fingerprint`` replaces the stored one (a changed machine ran the run on).

        ``create``: the run itself, if it stopped before writing any journal row.
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

        def work(db: sqlite3.Connection) -> None:
            with transaction(db):
                if create is not None:
                    insert_run(db, create)
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

        return self._do("stop run", work, run_id)
