"""Rows of the SQLite store: inserting a run, a transaction (records from rows: ``durable._rows``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from agentsm_fn.durable._rows import NEW_RUN_COLUMNS, new_run_values
from agentsm_fn.durable.store import NewRun

_MARKS = ", ".join(["?"] * len(NEW_RUN_COLUMNS.split(",")))


def insert_run(db: sqlite3.Connection, run: NewRun) -> None:
    db.execute(f"INSERT INTO runs({NEW_RUN_COLUMNS}) VALUES ({_MARKS})", new_run_values(run))


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
