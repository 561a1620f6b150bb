"""What only the SQLite store has: its ``synchronous`` setting, and a file that is not a database."""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from agentsm_fn.durable import Durability, SqliteStore, StoreFailure
from tests.durable.machines import DURABLE_ORDERS, Order


@pytest.mark.parametrize("durability", list(Durability))
def test_synchronous_is_a_setting(tmp_path: Path, durability: Durability) -> None:
    with closing(SqliteStore.open(tmp_path / "runs.db", durability=durability).unwrap()) as store:
        level = store._db.execute("PRAGMA synchronous").fetchone()[0]
        assert level == {Durability.NORMAL: 1, Durability.FULL: 2}[durability]
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert DURABLE_ORDERS.start(store, Order(items=1)).unwrap().finished


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    assert isinstance(SqliteStore.open(junk).failure(), StoreFailure)
    assert junk.read_bytes() == b"not a database at all" * 100
