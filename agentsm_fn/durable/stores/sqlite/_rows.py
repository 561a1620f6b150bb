"""Rows of the SQLite store: inserting a run, a transaction (records from rows: ``durable.stores._rows``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from agentsm_fn.durable.stores._rows import new_run_values
from agentsm_fn.durable.stores._writes import INSERT_RUN
from agentsm_fn.durable.stores.protocol import NewRun


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
