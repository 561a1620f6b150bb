"""The SQLite store's tables (see :mod:`agentsm_fn.durable.stores.sqlite`)."""

from agentsm_fn.durable.stores.sql.children import child_schema
from agentsm_fn.durable.stores.sql.experiments import EXPERIMENT_TABLES
from agentsm_fn.durable.stores.sql.threads import thread_schema

SCHEMA_VERSION = 1

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS runs (
        id TEXT PRIMARY KEY,
        machine TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        created REAL NOT NULL,
        updated REAL NOT NULL,
        state TEXT,
        steps INTEGER,
        effects INTEGER,
        reason TEXT,
        owner TEXT,
        lease_until REAL,
        parent TEXT,
        parent_step INTEGER,
        memory BLOB NOT NULL,
        start_state TEXT,
        start_steps INTEGER,
        tail BLOB
    )""",
    "CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status)",
    "CREATE INDEX IF NOT EXISTS runs_by_created ON runs (created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_status_created ON runs (status, created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_machine_created ON runs (machine, created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_updated ON runs (updated, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_parent ON runs (parent, created DESC, id)",
    """CREATE TABLE IF NOT EXISTS journal (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        digest BLOB NOT NULL,
        ticks BLOB,
        outcome BLOB,
        at REAL,
        waiting INTEGER NOT NULL DEFAULT 0,
        summary TEXT,
        effect BLOB,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS trace_contexts (
        run_id TEXT PRIMARY KEY,
        carrier TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS checkpoints (
        run_id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        steps INTEGER NOT NULL,
        memory BLOB NOT NULL,
        pending BLOB NOT NULL
    )""",
    """INSERT OR REPLACE INTO meta(key, value) SELECT 'run_count', (SELECT CAST(count(*) AS TEXT) FROM runs)
    WHERE (SELECT count(*) FROM sqlite_master
           WHERE type = 'trigger' AND name IN ('runs_counted_in', 'runs_counted_out')) < 2""",
    """CREATE TRIGGER IF NOT EXISTS runs_counted_in AFTER INSERT ON runs BEGIN
        UPDATE meta SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'run_count';
    END""",
    """CREATE TRIGGER IF NOT EXISTS runs_counted_out AFTER DELETE ON runs BEGIN
        UPDATE meta SET value = CAST(CAST(value AS INTEGER) - 1 AS TEXT) WHERE key = 'run_count';
    END""",
    *(table.format(real="REAL") for table in EXPERIMENT_TABLES),
    *thread_schema(text="TEXT", real="REAL", integer="INTEGER", blob="BLOB"),
    *child_schema(text="TEXT", integer="INTEGER", blob="BLOB"),
)
"""The statements that create the tables (idempotent).

``trace_contexts`` came after schema 1 was released: a table of its own (a run's W3C trace
context, JSON), created when a store is opened, so an older store gains it and stays
readable, and an older version of this library opening a newer store ignores it. So do the
thread tables (:mod:`agentsm_fn.durable.stores.sql.threads`), the children table
(:mod:`agentsm_fn.durable.stores.sql.children`) and the
indexes ``runs_by_updated`` (a watch's look at what changed) and ``runs_by_parent`` (a run's
forks): every open creates what is missing, so an older store gains them.

``meta``'s ``run_count`` is how many runs there are, kept by two triggers in the transaction
that inserts or deletes a run (by this library or by any other SQL), so a watch learns that a
run went without ``count(*)`` over ``runs``. A store without both triggers (written before
they came) is counted once, in the transaction of the open that adds them (a write
transaction: nothing is inserted between the count and the triggers); an older version of
this library ignores the row, and the triggers keep it right.
"""
