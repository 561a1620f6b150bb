"""The SQLite store: settings, refusals, ownership, and corrupt stored data as typed errors."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from returns.result import Failure

from agentsm_fn.durable import (
    CodecFailure,
    CodecFailureKind,
    Durability,
    RunBusy,
    RunStatus,
    SqliteStore,
    StoreFailure,
)
from agentsm_fn.durable._owner import this_owner
from agentsm_fn.durable.recover import recover
from tests.durable.machines import DURABLE_ORDERS, Order


@pytest.mark.parametrize("durability", list(Durability))
def test_synchronous_is_a_setting(tmp_path: Path, durability: Durability) -> None:
    store = SqliteStore.open(tmp_path / "runs.db", durability=durability).unwrap()
    level = store._db.execute("PRAGMA synchronous").fetchone()[0]
    assert level == {Durability.NORMAL: 1, Durability.FULL: 2}[durability]
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert DURABLE_ORDERS.start(store, Order(items=1)).unwrap().finished


def test_a_file_that_is_not_a_store_or_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    assert isinstance(SqliteStore.open(junk).failure(), StoreFailure)
    newer = tmp_path / "newer.db"
    SqliteStore.open(newer).unwrap().close()
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    refused = SqliteStore.open(newer).failure()
    assert "schema 99" in refused.describe()


def test_a_run_owned_by_a_live_process_is_busy_and_not_recovered(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0)).unwrap().run_id
    store._db.execute(
        "UPDATE runs SET status = 'running', owner = 'elsewhere:1', lease_until = 1e12 WHERE id = ?",
        (run_id,),
    )
    busy = DURABLE_ORDERS.resume(store, run_id)
    assert isinstance(busy, Failure) and isinstance(busy.failure(), RunBusy)
    assert recover(store, [DURABLE_ORDERS], clock=lambda: 0.0).unwrap() == ()


def test_a_run_whose_owner_died_is_taken_over(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=1, approval_over=0)).unwrap().run_id
    dead = this_owner().rpartition(":")[0] + ":999999999"
    store._db.execute(
        "UPDATE runs SET status = 'running', owner = ?, lease_until = 1e12 WHERE id = ?", (dead, run_id)
    )
    (recovered,) = recover(store, [DURABLE_ORDERS]).unwrap()
    assert recovered.run_id == run_id
    assert store.get(run_id).unwrap().status is RunStatus.WAITING  # it went on to its approval again


def test_a_corrupt_outcome_is_a_codec_failure_naming_the_run_and_the_entry(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id="r-7").unwrap().run_id
    store._db.execute("DELETE FROM checkpoints")
    store._db.execute("UPDATE journal SET outcome = x'c1' WHERE run_id = ? AND seq = 2", (run_id,))
    store._db.execute("UPDATE journal SET outcome = x'c3' WHERE run_id = ? AND seq = 4", (run_id,))
    failure = DURABLE_ORDERS.resume(store, run_id).failure()
    assert isinstance(failure, CodecFailure) and failure.kind is CodecFailureKind.CORRUPT
    assert failure.describe().startswith("run r-7, journal[2].outcome: corrupt")
