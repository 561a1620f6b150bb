"""``GET /events`` looks at what changed, not at every run: the store-wide watch's reads, counted.

After its first look, a :class:`StoreWatch` reads the runs updated since the latest it saw
(less ``LOOKBACK``) and the count; every run only when the count says a run went (or came
with an old update time) and every ``RESYNC_LOOKS`` looks. Whatever it reads, it holds what
the store holds, and a removed run reaches a client as ``event: removed``.
"""

from __future__ import annotations

import asyncio
import json
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn.durable import NewRun, RunRecord, SqliteStore, StoreFailure
from agentsm_fn.durable.stores.protocol.updates import RunUpdates
from agentsm_fn.server import create_app
from agentsm_fn.server.changes import LOOKBACK, RESYNC_LOOKS, StoreWatch
from tests.durable.machines import DURABLE_ORDERS
from tests.durable.stores import execute
from tests.server.live import STARTUP_TIMEOUT, orders_store, serving


def _aged(store: SqliteStore) -> list[str]:
    """The store's runs updated 100 s apart (run i at 100 * (i + 1)), long before now; their ids."""
    ids = sorted(record.run_id for record in store.runs().unwrap())
    for n, run_id in enumerate(ids):
        execute(store.path, "UPDATE runs SET updated = ? WHERE id = ?", (100.0 * (n + 1), run_id))
    return ids


def _new(run_id: str, created: float) -> NewRun:
    return NewRun(
        run_id=run_id, machine="m:M", fingerprint="f", memory=b"m", created=created, owner="", lease_until=0.0
    )


def test_a_look_reads_what_changed_and_every_run_only_when_the_count_disagrees(tmp_path: Path) -> None:
    store = orders_store(tmp_path / "runs.db", finished=3, waiting=2)
    ids = _aged(store)
    watch = StoreWatch(store, 0.25)

    async def looks() -> None:
        await watch.refresh()
        assert (watch.full_reads, watch.rows_read) == (1, 5)
        await watch.refresh()  # nothing changed: only the latest run is within LOOKBACK of it
        assert (watch.full_reads, watch.rows_read) == (1, 6)
        execute(store.path, "UPDATE runs SET steps = 99, updated = 1000 WHERE id = ?", (ids[0],))
        await watch.refresh()
        assert watch.records[ids[0]].steps == 99
        assert (watch.full_reads, watch.rows_read) == (1, 8)  # from 500 - LOOKBACK on: the runs at 500, 1000
        store.create(_new("late", 50.0)).unwrap()  # updated long before the window: the count tells
        await watch.refresh()
        assert "late" in watch.records and watch.full_reads == 2
        execute(store.path, "DELETE FROM runs WHERE id = ?", (ids[1],))
        await watch.refresh()
        assert ids[1] not in watch.records and watch.full_reads == 3
        assert watch.records == {record.run_id: record for record in store.runs().unwrap()}

    with closing(store):
        asyncio.run(looks())


class _Plain:
    """A store seen without its own ``updated_since`` (the watch filters ``runs()`` instead)."""

    def __init__(self, store: SqliteStore) -> None:
        self._store = store

    def runs(self, unfinished_only: bool = False) -> Result[tuple[RunRecord, ...], StoreFailure]:
        return self._store.runs(unfinished_only)


_OPS = st.lists(
    st.tuples(st.sampled_from(["change", "create", "delete"]), st.integers(0, 7), st.floats(-LOOKBACK, 30.0)),
    max_size=12,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=_OPS, plain=st.booleans())
def test_after_every_look_the_watch_holds_what_the_store_holds(
    tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int, float]], plain: bool
) -> None:
    store = SqliteStore.open(tmp_path_factory.mktemp("watch") / "runs.db").unwrap()
    for n in range(4):
        store.create(_new(f"r{n}", 1000.0 + n)).unwrap()
    seen = _Plain(store) if plain else store
    assert isinstance(seen, RunUpdates) is not plain
    watch = StoreWatch(seen, 0.25)  # type: ignore[arg-type]  # _Plain has every method the watch calls

    async def looks() -> None:
        await watch.refresh()
        latest = 1003.0
        for op, n, delta in ops:  # a write's update time: up to LOOKBACK before the latest seen
            at = latest + delta
            if op == "create" and store.get(f"r{n}").value_or(None) is None:
                store.create(_new(f"r{n}", at)).unwrap()
            elif op == "delete":
                execute(store.path, "DELETE FROM runs WHERE id = ?", (f"r{n}",))
            else:
                execute(
                    store.path, "UPDATE runs SET steps = steps + 1, updated = ? WHERE id = ?", (at, f"r{n}")
                )
            await watch.refresh()
            latest = max(
                latest, at
            )  # the latest update time written (the watch saw it: it was in the window)
            assert watch.records == {record.run_id: record for record in store.runs().unwrap()}

    with closing(store):
        asyncio.run(looks())


def test_every_resync_looks_the_watch_reads_every_run(tmp_path: Path) -> None:
    store = orders_store(tmp_path / "runs.db", finished=1, waiting=1)
    watch = StoreWatch(store, 0.25)

    async def looks() -> None:
        for _ in range(RESYNC_LOOKS + 1):
            await watch.refresh()

    with closing(store):
        asyncio.run(looks())
    assert watch.full_reads == 2  # the first look and the RESYNC_LOOKS-th after it


def test_a_removed_run_is_sent_as_removed(tmp_path: Path) -> None:
    store = orders_store(tmp_path / "runs.db", finished=2, waiting=1)
    with (
        closing(store),
        serving(create_app(store, [DURABLE_ORDERS], poll_interval=0.01)) as url,
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/events") as source,
    ):
        execute(store.path, "DELETE FROM journal WHERE run_id = 'done-0'")
        execute(store.path, "DELETE FROM runs WHERE id = 'done-0'")
        event = next(iter(source.iter_sse()))
    assert event.event == "removed" and json.loads(event.data) == {"run_id": "done-0"}
