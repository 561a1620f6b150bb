"""The PostgreSQL store's journal writes find their row by the journal's primary key, whatever it holds.

psycopg prepares a statement it has run five times, and the server then keeps one generic plan
for it. A write that found its row by joining the ownership CTE was planned, on a small journal,
as a sequential scan of the whole journal: every effect read every row of every run, and a run
got slower with each run stored before it. Each write's generic plan is checked here, made
while the journal holds a handful of rows.
"""

from __future__ import annotations

import psycopg
import pytest
from returns.result import Success

from agentsm_fn.durable import NewRun, RunRecord, RunStatus
from agentsm_fn.durable.stores.postgres import PostgresStore
from agentsm_fn.durable.stores.postgres._group import Db
from tests.durable.stores import entry

OWNER = "here:1"


def journal_writes(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[str, tuple[object, ...]]]:
    """Every one-statement write the store sends while a run uses each kind of journal write."""
    sent: list[tuple[str, tuple[object, ...]]] = []
    real = Db.write

    def recording(self: Db, sql: str, params: tuple[object, ...]) -> int:
        sent.append((sql, params))
        return real(self, sql, params)

    monkeypatch.setattr(Db, "write", recording)
    store = PostgresStore.open(postgres_url).unwrap()
    run = NewRun(
        run_id="r", machine="m:M", fingerprint="f", memory=b"m", created=1.0, owner=OWNER, lease_until=1e12
    )
    stopped = RunRecord(
        run_id="r", machine="m:M", fingerprint="", status=RunStatus.FINISHED, created=1, updated=9
    )
    written = [
        store.start_effect("r", entry(0), OWNER, create=run),
        store.start_effect("r", entry(1), OWNER, done=entry(0, b"o")),  # completes 0
        store.commit("r", entry(1, b"o"), OWNER, started=True),
        store.forget("r", 1, True, OWNER),
        store.forget("r", 1, False, OWNER),
        store.start_effect("r", entry(1), OWNER),
        store.wait("r", entry(1, waiting=True), OWNER, started=True),
        store.start_effect("r", entry(2), OWNER),
        store.stop("r", stopped, (), OWNER, done=entry(2, b"o")),
    ]
    store.close()
    assert written == [Success(None)] * len(written)
    return sent


def generic_plan(postgres_url: str, sql: str, params: tuple[object, ...]) -> str:
    """The plan the server keeps for ``sql`` once it is prepared (plan_cache_mode forces the generic one)."""
    with psycopg.connect(postgres_url, autocommit=True) as db, db.transaction(force_rollback=True):
        db.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        db.execute(sql, params, prepare=True)  # what it writes is rolled back
        found = db.execute("SELECT name, parameter_types::text[] FROM pg_prepared_statements").fetchall()
        assert len(found) == 1
        name, types = found[0]
        assert isinstance(types, list)
        quote = psycopg.ClientCursor(db).mogrify
        values = ", ".join(
            f"NULL::{kind}" if value is None else f"{quote('%s', (value,))}::{kind}"
            for value, kind in zip(params, types, strict=True)
        )
        return "\n".join(str(line) for (line,) in db.execute(f"EXPLAIN EXECUTE {name}({values})"))


def test_every_journal_write_finds_its_row_by_the_primary_key_in_its_kept_plan(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads = [
        (sql, params)
        for sql, params in journal_writes(postgres_url, monkeypatch)
        if "UPDATE journal" in sql or "DELETE FROM journal" in sql
    ]
    assert len(reads) == 6  # complete (with the next start, alone, with the stop), forget twice, wait
    for sql, params in reads:
        plan = generic_plan(postgres_url, sql, params)
        assert "Seq Scan on journal" not in plan, plan
        assert "journal_pkey" in plan, plan
