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

The store's methods live in one module per part: the connection (``_connection``), run
records, leases and checkpoints (``_runs``), the journal and its waits (``_journal``), the
queue (``_queue``); the reads and writes both stores make alike are ``durable.stores.sql.reads`` and
``durable.stores.sql.writes``. This module opens the file and migrates its schema.
"""

from __future__ import annotations

import enum
import sqlite3
from pathlib import Path

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.sql.children import StoreChildren
from agentsm_fn.durable.stores.sql.experiments import StoreExperiments
from agentsm_fn.durable.stores.sql.threads import StoreThreads
from agentsm_fn.durable.stores.sqlite._journal import SqliteJournal
from agentsm_fn.durable.stores.sqlite._queue import SqliteQueue
from agentsm_fn.durable.stores.sqlite._rows import transaction
from agentsm_fn.durable.stores.sqlite._runs import SqliteRuns
from agentsm_fn.durable.stores.sqlite._schema import SCHEMA, SCHEMA_VERSION

__all__ = ["Durability", "SqliteStore"]


class Durability(enum.Enum):
    """SQLite's ``synchronous`` setting: what a committed effect survives (see the module doc)."""

    NORMAL = "NORMAL"
    """Survives a killed process; a power cut may lose the last commits."""
    FULL = "FULL"
    """Survives a power cut too; every commit waits for the disk."""


class SqliteStore(SqliteRuns, SqliteJournal, SqliteQueue, StoreExperiments, StoreThreads, StoreChildren):
    """A :class:`~agentsm_fn.durable.stores.protocol.store.RunStore` in one SQLite file.

    Example:
        >>> import tempfile, os
        >>> folder = tempfile.mkdtemp()
        >>> store = SqliteStore.open(os.path.join(folder, "runs.db")).unwrap()
        >>> store.runs().unwrap()
        ()
        >>> store.close()
    """

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
            foreign = _foreign_tables(db)
            if foreign:  # another program's database: change nothing in it, not even its journal mode
                db.close()
                detail = (
                    f"{path} is not a run store: it holds the tables {', '.join(foreign)} and no store schema"
                )
                return Failure(StoreFailure(operation="open", detail=detail))
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


def _foreign_tables(db: sqlite3.Connection) -> list[str]:
    """The tables of a database that has tables but no store schema row: none for a store or a new file.

    A store's tables and its ``meta`` row ``schema`` are written in one transaction, so a
    database with tables and no such row (another program's, even one with a ``meta``
    table of its own) is not a store.
    """
    tables = sorted(str(row[0]) for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
    if not tables:
        return []
    try:
        marked = db.execute("SELECT 1 FROM meta WHERE key = 'schema'").fetchone() is not None
    except sqlite3.Error:  # no meta table, or one of another shape
        marked = False
    return [] if marked else tables
