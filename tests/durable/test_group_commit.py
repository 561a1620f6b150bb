"""Group commit on every store: the concurrent writes of one event loop's runs go in one group.

Each write's result is its own: one that is refused (another owner, an entry written first)
fails alone, and the others of its group are written. On PostgreSQL a group is one round trip.
"""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from returns.result import Result, Success

from agentsm_fn.durable import NewRun, RunBusy, RunStore, StoreFailure, is_postgres, open_store
from agentsm_fn.durable.stores.sql.group import LOST
from tests.durable.round_trips import count_round_trips
from tests.durable.stores import entry, group_sizes

OWNER = "here:1"


def new_run(run_id: str) -> NewRun:
    return NewRun(
        run_id=run_id, machine="m:M", fingerprint="f", memory=b"m", created=1.0, owner=OWNER, lease_until=1e12
    )


Written = Result[None, RunBusy | StoreFailure]


async def concurrently(store: RunStore) -> list[Written]:
    """Four writes of four runs at once: a start, a start by a lost owner, a start of an entry
    written already, and an outcome of a started entry."""
    return list(
        await asyncio.gather(
            store.astart_effect("a", entry(0), OWNER),
            store.astart_effect("b", entry(0), "elsewhere:2"),
            store.astart_effect("c", entry(0), OWNER),
            store.acommit("d", entry(0, b"paid"), OWNER, started=True),
        )
    )


def stored(store: RunStore) -> None:
    for run_id in "abcd":
        assert store.create(new_run(run_id)).unwrap() is None
    for run_id in "cd":
        assert store.start_effect(run_id, entry(0), OWNER).unwrap() is None


async def test_a_refused_write_fails_alone_and_the_rest_of_its_group_is_written(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    stored(store)
    sizes = group_sizes(store, monkeypatch)
    a, b, c, d = await concurrently(store)
    assert sizes == [4]  # one group
    assert a == Success(None) and d == Success(None)
    assert b.failure() == RunBusy(run_id="b", owner=LOST)  # not the owner: nothing written
    refused = c.failure()
    assert isinstance(refused, RunBusy) and "wrote this entry first" in refused.owner
    journals = {run_id: store.journal(run_id).unwrap() for run_id in "abcd"}
    assert journals == {"a": (entry(0),), "b": (), "c": (entry(0),), "d": (entry(0, b"paid"),)}
    # the group's connection is left as it should be: the next group is written as well
    assert await store.astart_effect("a", entry(1), OWNER) == Success(None)
    assert [row.seq for row in store.journal("a").unwrap()] == [0, 1]


async def test_a_group_of_writes_that_all_succeed_is_one_round_trip_on_postgresql(
    store: RunStore, store_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for run_id in "abcd":
        assert store.create(new_run(run_id)).unwrap() is None
    assert store.start_effect("d", entry(0), OWNER).unwrap() is None
    sizes = group_sizes(store, monkeypatch)
    round_trips = count_round_trips(monkeypatch) if is_postgres(store_db) else None
    results = await asyncio.gather(
        store.astart_effect("a", entry(0), OWNER),
        store.astart_effect("b", entry(0), OWNER, done=None),
        store.acommit("c", entry(0, b"o"), OWNER, started=False),
        store.acommit("d", entry(0, b"paid"), OWNER, started=True),
    )
    assert sizes == [4] and list(results) == [Success(None)] * 4
    if round_trips is not None:
        assert (
            round_trips.count == 1
        )  # before: BEGIN, a savepoint, the write and its release each, COMMIT: 14
    assert [store.journal(run_id).unwrap() for run_id in "abcd"] == [
        (entry(0),),
        (entry(0),),
        (entry(0, b"o"),),
        (entry(0, b"paid"),),
    ]


async def test_without_pipeline_mode_a_group_is_written_a_savepoint_per_write(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_store(postgres_url).unwrap()
    stored(store)
    monkeypatch.setattr(psycopg.Pipeline, "is_supported", classmethod(lambda cls: False))  # a libpq before 14
    round_trips = count_round_trips(monkeypatch)
    a, b, c, d = await concurrently(store)
    assert round_trips.count == 1 + 4 * 3 + 1  # BEGIN, a savepoint, the write and its release each, COMMIT
    assert a == Success(None) and d == Success(None) and isinstance(b.failure(), RunBusy)
    assert isinstance(c.failure(), RunBusy)
    assert [len(store.journal(run_id).unwrap()) for run_id in "abcd"] == [1, 0, 1, 1]
    store.close()
