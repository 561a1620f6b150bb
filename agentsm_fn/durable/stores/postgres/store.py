"""The shared store: one PostgreSQL database (psycopg 3 and its pool), for many processes on many hosts.

Every effect is one transaction, as in the SQLite store: a row inserted (or a started row
completed) in the ``journal`` table. Writes are fenced by ownership and lock the run's row
``FOR SHARE``, so a process that lost its run (to ``recover`` after its lease expired, on
any host) cannot write into it, not even while the run is being taken over. Two answers to
one waiting effect race for one row: exactly one is taken. Concurrent async runs of one
process commit their journal writes in groups, one transaction per group.

A commit is durable as the server's settings say (``synchronous_commit``, ``fsync``); by
default it is on the server's disk when it returns, so it survives a killed client, a killed
server and a power cut.

The tables live in the connection's current schema (``search_path``): a database, or a
schema, of the store's own (give ``options=-csearch_path=runs`` to keep it apart from other
tables). A schema that holds other tables and no store is refused, never taken over.
"""

from __future__ import annotations

import re

import psycopg
from psycopg_pool import ConnectionPool
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.postgres._group import Db
from agentsm_fn.durable.stores.postgres._journal import PostgresJournal
from agentsm_fn.durable.stores.postgres._queue import QUEUE_SCHEMA, PostgresQueue
from agentsm_fn.durable.stores.postgres._runs import PostgresRuns
from agentsm_fn.durable.stores.postgres._schema import SCHEMA, SCHEMA_LOCK, SCHEMA_VERSION
from agentsm_fn.durable.stores.postgres._where import Where, where
from agentsm_fn.durable.stores.sql.children import StoreChildren
from agentsm_fn.durable.stores.sql.experiments import StoreExperiments
from agentsm_fn.durable.stores.sql.threads import StoreThreads

__all__ = ["PostgresStore"]


class PostgresStore(
    PostgresRuns, PostgresJournal, PostgresQueue, StoreExperiments, StoreThreads, StoreChildren
):
    """A :class:`~agentsm_fn.durable.stores.protocol.store.RunStore` in a PostgreSQL database.

    Open it with a connection string (``postgresql://user:password@host:5432/database`` or
    ``host=... dbname=...``); ``pool_size`` connections at most are open at once.
    """

    @classmethod
    def open(
        cls, conninfo: str, *, pool_size: int = 4, connect_timeout: float = 10.0, create: bool = True
    ) -> Result[PostgresStore, StoreFailure]:
        """Open the store in the database of ``conninfo``; create its tables unless ``create`` is False.

        A failure names the database without its password (never the connection string itself).

        Example:
            >>> PostgresStore.open("postgresql://me:pa55word@127.0.0.1:1/runs").failure().describe()
            ... # doctest: +ELLIPSIS
            'store: open postgresql://me@127.0.0.1:1/runs failed: ...'
        """
        at = where(conninfo)
        try:
            with Db.connect(conninfo, autocommit=True, connect_timeout=max(1, round(connect_timeout))) as db:
                refused = _schema(db, at, create)
        except psycopg.Error as exc:
            return Failure(StoreFailure(operation=f"open {at.shown}", detail=at.redact(str(exc))))
        if refused:
            return Failure(StoreFailure(operation=f"open {at.shown}", detail=refused))
        pool: ConnectionPool[Db] = ConnectionPool(
            conninfo,
            connection_class=Db,
            min_size=1,
            max_size=max(1, pool_size),
            kwargs={"autocommit": True},
            timeout=connect_timeout,
            open=False,
            name="agentsm-runs",
        )
        try:
            pool.open(wait=True, timeout=connect_timeout)
        except psycopg.Error as exc:
            pool.close()
            return Failure(StoreFailure(operation=f"open {at.shown}", detail=at.redact(str(exc))))
        return Success(cls(pool, at))


def _marker(db: Db) -> tuple[object, ...] | None:
    """The store's schema row, if the ``meta`` table is the store's (another program's may have one)."""
    try:
        with db.transaction():  # a savepoint: a meta table of another shape fails the query alone
            return db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except psycopg.Error:
        return None


_CREATED = re.compile(r"^\s*CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)|^\s*CREATE OR REPLACE TRIGGER (\w+)")


def _creates(statement: str) -> str:
    """The table, index or trigger ``statement`` creates (``""``: it creates something else, or checks).

    Example:
        >>> _creates("CREATE INDEX IF NOT EXISTS runs_by_parent ON runs (parent)"), _creates("DO $$ ... $$")
        ('runs_by_parent', '')
    """
    found = _CREATED.match(statement)
    return "" if found is None else found.group(1) or found.group(2)


def _present(db: Db) -> frozenset[str]:
    """The tables, indexes and triggers of the current schema: their statements are not run again.

    Creating an index (even one that exists) locks its table against writes, and replacing a
    trigger locks ``runs``: a process opening the store while others write would queue behind
    them holding the locks it took before, and two transactions that each wait on the other are
    a deadlock (a turn taken writes ``threads`` then ``runs``). So an open takes no such lock on
    a store that has them all.
    """
    relations = db.execute(
        "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
    ).fetchall()
    triggers = db.execute(
        "SELECT tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
        "WHERE c.relnamespace = current_schema()::regnamespace"
    ).fetchall()
    return frozenset(str(row[0]) for row in (*relations, *triggers))


def _schema(db: Db, at: Where, create: bool) -> str:
    """Create the tables (or check them) under an advisory lock; why the database is refused, or ``""``."""
    with db.transaction():
        db.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        tables = sorted(
            str(row[0])
            for row in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        )
        found = _marker(db) if "meta" in tables else None
        if tables and found is None:  # another program's tables, even one with a meta table of its own
            return (
                f"{at.shown} is not a run store: it holds the tables {', '.join(tables)} and no store schema"
            )
        if found is not None and found[0] != str(SCHEMA_VERSION):
            return f"{at.shown} has schema {found[0]}; this version reads schema {SCHEMA_VERSION}"
        if found is None and not create:
            return f"{at.shown} holds no run store"
        present = _present(db)
        for statement in (*SCHEMA, *QUEUE_SCHEMA):
            if _creates(statement) not in present:
                db.execute(statement)
        if found is None:
            db.execute("INSERT INTO meta(key, value) VALUES ('schema', %s)", (str(SCHEMA_VERSION),))
    return ""
