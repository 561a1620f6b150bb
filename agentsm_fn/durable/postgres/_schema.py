"""The PostgreSQL store's tables (see :mod:`agentsm_fn.durable.postgres`): the SQLite store's, typed."""

SCHEMA_VERSION = 1

SCHEMA_LOCK = 0x6167_656E_7473_6D  # "agentsm": the advisory lock two processes creating the tables take
"""Held while the tables are created, so two processes opening a new database do not race."""

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value text NOT NULL)",
    """CREATE TABLE IF NOT EXISTS runs (
        id text PRIMARY KEY,
        machine text NOT NULL,
        fingerprint text NOT NULL,
        status text NOT NULL,
        created double precision NOT NULL,
        updated double precision NOT NULL,
        state text,
        steps integer,
        effects integer,
        reason text,
        owner text,
        lease_until double precision,
        parent text,
        parent_step integer,
        memory bytea NOT NULL,
        start_state text,
        start_steps integer,
        tail bytea
    )""",
    "CREATE INDEX IF NOT EXISTS runs_by_status ON runs (status)",
    "CREATE INDEX IF NOT EXISTS runs_by_created ON runs (created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_status_created ON runs (status, created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_machine_created ON runs (machine, created DESC, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_updated ON runs (updated, id)",
    "CREATE INDEX IF NOT EXISTS runs_by_parent ON runs (parent, created DESC, id)",
    """CREATE TABLE IF NOT EXISTS journal (
        run_id text NOT NULL,
        seq integer NOT NULL,
        digest bytea NOT NULL,
        ticks bytea,
        outcome bytea,
        at double precision,
        waiting boolean NOT NULL DEFAULT false,
        summary text,
        effect bytea,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS trace_contexts (
        run_id text PRIMARY KEY,
        carrier text NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS checkpoints (
        run_id text PRIMARY KEY,
        seq integer NOT NULL,
        state text NOT NULL,
        steps integer NOT NULL,
        memory bytea NOT NULL,
        pending bytea NOT NULL
    )""",
)
"""The statements that create the tables (idempotent), in the database's current schema.

The constraint names PostgreSQL gives (``runs_pkey``, ``journal_pkey``) tell a duplicate run
from a duplicate journal entry. Every open creates what is missing (the indexes
``runs_by_updated`` and ``runs_by_parent`` came after schema 1), so an older store gains it.
"""
