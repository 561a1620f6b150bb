"""The PostgreSQL store's tables (:mod:`agentsm_fn.durable.stores.postgres`): the SQLite store's, typed."""

from agentsm_fn.durable.stores.sql.children import child_schema
from agentsm_fn.durable.stores.sql.experiments import EXPERIMENT_TABLES
from agentsm_fn.durable.stores.sql.threads import thread_schema

SCHEMA_VERSION = 1

SCHEMA_LOCK = 0x6167_656E_7473_6D  # "agentsm": the advisory lock two processes creating the tables take
"""Held while the tables are created, so two processes opening a new database do not race."""

COUNT_SHARDS = 16
"""Rows of ``meta`` the run count is kept in (``run_count`` and ``run_count.0`` to ``.15``, by connection)."""

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
    f"""CREATE OR REPLACE FUNCTION agentsm_count_runs() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN
        INSERT INTO meta AS m (key, value) VALUES (
            'run_count.' || (pg_backend_pid() % {COUNT_SHARDS}),
            CASE TG_OP WHEN 'INSERT' THEN '1' ELSE '-1' END
        )
        ON CONFLICT (key) DO UPDATE SET value = (m.value::bigint + EXCLUDED.value::bigint)::text;
        RETURN NULL;
    END $$""",
    """CREATE OR REPLACE FUNCTION agentsm_uncount_runs() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
    BEGIN UPDATE meta SET value = '0' WHERE substr(key, 1, 9) = 'run_count'; RETURN NULL; END $$""",
    """DO $$ BEGIN
        IF (SELECT count(*) FROM pg_trigger WHERE tgrelid = 'runs'::regclass
            AND tgname IN ('runs_counted', 'runs_uncounted')) < 2 THEN
            DROP TRIGGER IF EXISTS runs_counted ON runs;
            DROP TRIGGER IF EXISTS runs_uncounted ON runs;
            CREATE CONSTRAINT TRIGGER runs_counted AFTER INSERT OR DELETE ON runs
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION agentsm_count_runs();
            CREATE TRIGGER runs_uncounted AFTER TRUNCATE ON runs
                FOR EACH STATEMENT EXECUTE FUNCTION agentsm_uncount_runs();
            DELETE FROM meta WHERE substr(key, 1, 9) = 'run_count';
            INSERT INTO meta(key, value) SELECT 'run_count', count(*)::text FROM runs;
        END IF;
    END $$""",
    *(table.format(real="double precision") for table in EXPERIMENT_TABLES),
    *thread_schema(text="text", real="double precision", integer="integer", blob="bytea"),
    *child_schema(text="text", integer="integer", blob="bytea"),
)
"""The statements that create the tables (idempotent), in the database's current schema.

The constraint names PostgreSQL gives (``runs_pkey``, ``journal_pkey``) tell a duplicate run
from a duplicate journal entry. Every open creates what is missing (the indexes
``runs_by_updated`` and ``runs_by_parent``, the thread tables and the children table came after
schema 1), so an
older store gains it.

How many runs there are is the sum of ``meta``'s ``run_count`` rows, kept by triggers in the
transaction that inserts or deletes a run (by this library or by any other SQL; a ``TRUNCATE``
sets it to 0), so a watch learns that a run went without ``count(*)`` over ``runs``. The row
trigger is deferred to the commit and adds to the row of its connection (``pg_backend_pid()``
modulo :data:`COUNT_SHARDS`): a transaction holds one count row's lock, and only while it
commits, so runs created at once by many connections seldom wait on each other and never
deadlock over it. A store without both triggers (written before the count came) gets them and
is counted once, by the open that creates them, after them in its transaction (creating a
trigger locks ``runs`` against writes until that commits, so no run is counted twice or
missed); an open that finds them takes no lock on ``runs``.
"""
