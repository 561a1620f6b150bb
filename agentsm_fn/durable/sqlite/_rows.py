"""Rows of the SQLite store: inserting a run, a transaction (records from rows: ``durable._rows``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from agentsm_fn.durable.store import NewRun


def insert_run(db: sqlite3.Connection, run: NewRun) -> None:
    db.execute(
        "INSERT INTO runs(id, machine, fingerprint, status, created, updated, owner, lease_until, parent, "
        "parent_step, memory, start_state, start_steps) "
        "VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.run_id,
            run.machine,
            run.fingerprint,
            run.created,
            run.created,
            run.owner,
            run.lease_until,
            run.parent,
            run.parent_step,
            run.memory,
            run.start_state,
            max(run.parent_step, 0),
        ),
    )


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
