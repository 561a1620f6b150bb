"""What only the PostgreSQL store has: connection strings whose password is never shown, a lazy driver,
its own schema in a shared database, and takeovers that race with writes on other connections."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.commands.runs.commands import main
from agentsm_fn.durable import JournalRow, NewRun, RunBusy, open_store
from agentsm_fn.durable.stores.postgres import PostgresStore
from agentsm_fn.durable.stores.postgres._where import where
from tests.durable.stores import execute
from tests.postgres import PostgresServer


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("wrong password", "password authentication failed"),
        ("unreachable host", "Connection refused"),
        ("no such database", "does not exist"),
    ],
)
def test_a_connection_strings_password_never_appears_in_an_error_or_any_output(
    postgres_server: PostgresServer,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    case: str,
    said: str,
) -> None:
    caplog.set_level(logging.DEBUG)  # every logger: psycopg's and its pool's included
    secret = "Sup3r-s3cret-pw" if case != "no such database" else postgres_server.password  # the right one
    url = {
        "wrong password": postgres_server.url(password=secret),
        "unreachable host": f"postgresql://agentsm:{secret}@127.0.0.1:1/postgres",
        "no such database": postgres_server.url("nothing_here"),
    }[case]
    failure = PostgresStore.open(url, connect_timeout=5).failure()
    assert said in failure.describe() and secret not in failure.describe() and secret not in repr(failure)
    assert "postgresql://agentsm@127.0.0.1:" in failure.describe()
    assert main(["--db", url, "list"]) == 5
    out, err = capsys.readouterr()
    assert said in err and secret not in out + err
    assert secret not in caplog.text


def test_a_password_in_key_value_form_or_the_query_is_not_shown_either(
    postgres_server: PostgresServer,
) -> None:
    secret = "An0ther-s3cret"
    for conninfo in (
        f"host=127.0.0.1 port={postgres_server.port} dbname=postgres user=agentsm password={secret}",
        f"postgresql://agentsm@127.0.0.1:{postgres_server.port}/postgres?password={secret}",
    ):
        failure = PostgresStore.open(conninfo, connect_timeout=5).failure()
        assert "password authentication failed" in failure.describe() and secret not in failure.describe()


def test_importing_the_library_or_the_durable_package_loads_no_postgresql_driver() -> None:
    code = (
        "import sys, agentsm_fn, agentsm_fn.durable, agentsm_fn.commands.runs.commands; "
        "print(sorted(m for m in sys.modules if m.startswith('psycopg')))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_the_store_keeps_to_its_own_schema_in_a_shared_database(postgres_url: str) -> None:
    execute(postgres_url, "CREATE TABLE orders (id integer)")
    assert "holds the tables orders" in open_store(postgres_url).failure().describe()
    execute(postgres_url, "CREATE SCHEMA runs")
    store = open_store(f"{postgres_url}?options=-csearch_path%3Druns").unwrap()
    assert store.runs().unwrap() == ()
    store.close()
    tables = execute(postgres_url, "SELECT tablename FROM pg_tables WHERE schemaname = 'runs' ORDER BY 1")
    assert [t for (t,) in tables] == [
        "checkpoints",
        "children",
        "experiment_runs",
        "experiments",
        "journal",
        "meta",
        "runs",
        "thread_turns",
        "threads",
        "trace_contexts",
        "turn_holders",
    ]


def test_reading_a_database_without_a_store_creates_nothing(postgres_url: str) -> None:
    assert main(["--db", postgres_url, "list"]) == 5
    assert execute(postgres_url, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]


def _waits_for_a_lock(url: str) -> bool:
    """Whether a session of this database comes to wait for a row lock (polled, 30 s at most)."""
    for _ in range(600):
        query = "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = ?"
        if execute(url, query, (url.rsplit("/", 1)[1],)) != [(0,)]:
            return True
        threading.Event().wait(0.05)
    return False


def test_a_write_racing_a_takeover_waits_for_it_and_then_writes_nothing(postgres_url: str) -> None:
    """The old owner writes while another host's claim is uncommitted: the write waits, then is fenced."""
    store = PostgresStore.open(postgres_url).unwrap()
    run = NewRun(
        run_id="r1", machine="m:M", fingerprint="f", memory=b"m", created=1.0, owner="old:1", lease_until=0
    )
    store.create(run).unwrap()
    import psycopg

    with psycopg.connect(postgres_url) as claimer:  # a transaction held open: the takeover in flight
        claimer.execute("UPDATE runs SET owner = 'new:1', lease_until = 1e12 WHERE id = 'r1'")
        results: list[object] = []
        writer = threading.Thread(
            target=lambda: results.append(
                store.start_effect(
                    "r1", JournalRow(seq=0, digest=b"d", ticks=(), outcome=None, at=None), "old:1"
                )
            )
        )
        writer.start()
        assert _waits_for_a_lock(postgres_url)  # the fenced write waits for the takeover to end
        claimer.commit()
    writer.join(timeout=60)
    (written,) = results
    assert isinstance(written.failure(), RunBusy)  # type: ignore[attr-defined]  # a Result
    assert store.journal("r1").unwrap() == ()
    store.close()


SHOWN = "store: open failed: postgresql://me@db.internal:5432/runs (a connection string that does not parse)"
"""Everything a failure shows besides the password: a password made of other characters cannot hide in it."""


@given(password=st.text(st.characters(codec="utf-8", exclude_characters=set(SHOWN)), min_size=1, max_size=24))
def test_no_password_of_any_characters_survives_in_what_a_failure_shows(password: str) -> None:
    url = f"postgresql://me:{quote(password, safe='')}@db.internal:5432/runs"
    shown = where(url)
    message = f"{url} {password} {password}{password}"
    for text in (shown.shown, shown.redact(message), shown.failure("open", OSError(message)).describe()):
        assert password not in text and quote(password, safe="") not in text
    assert shown.shown in (  # libpq refuses a NUL in a connection string
        "postgresql://me@db.internal:5432/runs",
        "postgresql://(a connection string that does not parse)",
    )
