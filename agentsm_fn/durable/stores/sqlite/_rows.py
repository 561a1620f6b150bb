"""Rows of the SQLite store: inserting a run, a transaction (records from rows: ``stores.sql.rows``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from agentsm_fn.durable.stores.protocol.store import NewRun
from agentsm_fn.durable.stores.sql.rows import new_run_values
from agentsm_fn.durable.stores.sql.writes import INSERT_RUN


def insert_run(db: sqlite3.Connection, run: NewRun) -> None:
    db.execute(INSERT_RUN, new_run_values(run))


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
