"""The reads a server makes often answer from an index, on every store (SQLite and PostgreSQL).

``updated_since`` gives the runs updated after a ``(updated, run_id)`` cursor and the count in
one read (a watch over the store looks at what changed); ``forks`` gives the runs forked from
one run (a run's page). Both are keyed by an index every open creates, so an older store
gains it; a status change by a claim is an update, so a watch sees it. The count is the store's
own (``meta``'s ``run_count``, kept by triggers through any SQL, counted once for an older store).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import NewRun, RunRecord, RunStatus, RunStore, is_postgres, open_store
from agentsm_fn.durable.operations.forks import RunForks, forks_of
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from agentsm_fn.durable.stores.protocol.updates import RunUpdates, updates_since
from tests.durable.stores import execute

INDEXES = ("runs_by_updated", "runs_by_parent")


def new_run(run_id: str, created: float, parent: str = "") -> NewRun:
    return NewRun(
        run_id=run_id,
        machine="m:M",
        fingerprint="f",
        memory=b"m",
        created=created,
        owner="elsewhere:1",
        lease_until=1e12,
        parent=parent,
        parent_step=1 if parent else -1,
    )


def _indexes(store_db: str) -> set[str]:
    if is_postgres(store_db):
        rows = execute(store_db, "SELECT indexname FROM pg_indexes WHERE tablename = 'runs'")
    else:
        rows = execute(store_db, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs'")
    return {str(row[0]) for row in rows}


def test_both_stores_answer_the_reads_themselves(store: RunStore) -> None:
    assert isinstance(store, RunUpdates) and isinstance(store, RunForks)


def test_a_store_opened_without_the_indexes_gains_them(store: RunStore, store_db: str) -> None:
    assert set(INDEXES) <= _indexes(store_db)
    store.create(new_run("r1", 1.0)).unwrap()
    store.close()
    for index in INDEXES:
        execute(store_db, f"DROP INDEX {index}")  # a store written before the indexes came
    assert not set(INDEXES) & _indexes(store_db)
    reopened = open_store(store_db).unwrap()
    try:
        assert set(INDEXES) <= _indexes(store_db)
        assert [record.run_id for record in reopened.runs().unwrap()] == ["r1"]
    finally:
        reopened.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    times=st.lists(st.sampled_from([1.0, 2.0, 2.5, 3.0]), min_size=0, max_size=8),
    cut=st.sampled_from([0.0, 2.0, 2.5, 9.0]),
    cut_id=st.sampled_from(["", "r3", "r9"]),
    limit=st.integers(min_value=0, max_value=10),
)
def test_updated_since_is_the_runs_after_the_cursor_in_order_with_the_count(
    store: RunStore,
    store_db: str,
    times: list[float],
    cut: float,
    cut_id: str,
    limit: int,
) -> None:
    execute(store_db, "DELETE FROM runs")
    for n, updated in enumerate(times):
        store.create(new_run(f"r{n}", 0.5)).unwrap()
        execute(store_db, "UPDATE runs SET updated = ? WHERE id = ?", (updated, f"r{n}"))
    found = updates_since(store, (cut, cut_id), limit).unwrap()
    every = sorted(store.runs().unwrap(), key=lambda record: (record.updated, record.run_id))
    later = [record for record in every if (record.updated, record.run_id) > (cut, cut_id)]
    assert found.records == tuple(later[:limit])
    assert found.total == len(times)


def _kept_count(store_db: str) -> int:
    """How many runs the store's ``meta`` rows say it holds (kept by its triggers)."""
    rows = execute(store_db, "SELECT value FROM meta WHERE substr(key, 1, 9) = 'run_count'")
    assert rows, "the store keeps no run count"
    return sum(int(str(value)) for (value,) in rows)


def _counted(store_db: str) -> int:
    return int(str(execute(store_db, "SELECT count(*) FROM runs")[0][0]))


_WRITES = st.lists(
    st.tuples(st.sampled_from(["create", "insert", "delete", "delete all"]), st.integers(0, 5)), max_size=10
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(writes=_WRITES)
def test_the_store_keeps_its_run_count_through_any_sql(
    store: RunStore, store_db: str, writes: list[tuple[str, int]]
) -> None:
    execute(store_db, "DELETE FROM runs")
    for op, n in writes:
        if op == "create" and store.get(f"r{n}").value_or(None) is None:
            store.create(new_run(f"r{n}", 1.0 + n)).unwrap()
        elif op == "insert":  # another program's SQL: a copy of a run under a new id, if there is one
            execute(
                store_db,
                "INSERT INTO runs (id, machine, fingerprint, status, created, updated, memory) "
                "SELECT ? || id, machine, fingerprint, status, created, updated, memory FROM runs "
                "WHERE id = (SELECT min(id) FROM runs WHERE id LIKE 'r_')",
                (f"c{n}-",),
            )
        elif op == "delete":
            execute(store_db, "DELETE FROM runs WHERE id = ? OR id LIKE ?", (f"r{n}", f"c{n}-%"))
        elif op == "delete all":
            execute(store_db, "DELETE FROM runs")
        assert _kept_count(store_db) == _counted(store_db)
        assert updates_since(store, (9e9, ""), 1).unwrap().total == _counted(store_db)


def test_a_store_written_before_the_count_is_counted_when_it_is_opened(
    store: RunStore, store_db: str
) -> None:
    for n in range(3):
        store.create(new_run(f"r{n}", 1.0 + n)).unwrap()
    store.close()
    if is_postgres(store_db):
        execute(store_db, "DROP TRIGGER runs_counted ON runs")  # a store written before the count came
        execute(store_db, "DROP TRIGGER runs_uncounted ON runs")
    else:
        execute(store_db, "DROP TRIGGER runs_counted_in")
        execute(store_db, "DROP TRIGGER runs_counted_out")
    execute(store_db, "DELETE FROM meta WHERE substr(key, 1, 9) = 'run_count'")
    execute(
        store_db,
        "INSERT INTO runs (id, machine, fingerprint, status, created, updated, memory) "
        "SELECT 'old', machine, fingerprint, status, created, updated, memory FROM runs WHERE id = 'r0'",
    )
    reopened = open_store(store_db).unwrap()
    try:
        assert _kept_count(store_db) == 4 == updates_since(reopened, (9e9, ""), 1).unwrap().total
        reopened.create(new_run("r9", 9.0)).unwrap()
        execute(store_db, "DELETE FROM runs WHERE id IN ('r0', 'old')")
        assert _kept_count(store_db) == 3 == updates_since(reopened, (9e9, ""), 1).unwrap().total
    finally:
        reopened.close()
    open_store(store_db).unwrap().close()  # a second open finds the triggers: it counts nothing again
    assert _kept_count(store_db) == 3


def test_runs_created_and_removed_at_once_on_many_connections_are_all_counted(
    store: RunStore, store_db: str
) -> None:
    def write(n: int) -> None:
        store.create(new_run(f"r{n}", 1.0 + n)).unwrap()
        if n % 3 == 0:
            execute(store_db, "DELETE FROM runs WHERE id = ?", (f"r{n}",))

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(write, range(60)))
    assert _kept_count(store_db) == _counted(store_db) == 40
    if is_postgres(store_db):
        execute(store_db, "TRUNCATE runs")
        assert _kept_count(store_db) == 0 == updates_since(store, (9e9, ""), 1).unwrap().total


def test_forks_are_the_runs_of_one_parent_newest_first(store: RunStore) -> None:
    store.create(new_run("parent", 1.0)).unwrap()
    store.create(new_run("other", 1.5)).unwrap()
    for run_id, created, parent in (("f1", 2.0, "parent"), ("f2", 3.0, "parent"), ("g1", 4.0, "other")):
        store.create(new_run(run_id, created, parent)).unwrap()
    found = forks_of(store, "parent").unwrap()
    assert [record.run_id for record in found] == ["f2", "f1"]
    assert all(isinstance(record, RunRecord) and record.parent_step == 1 for record in found)
    assert forks_of(store, "f1").unwrap() == ()
    assert found == tuple(record for record in store.runs().unwrap() if record.parent == "parent")


@pytest.mark.parametrize("how", ["claim", "claim_next"])
def test_a_claim_that_makes_a_ready_run_running_is_an_update(
    store: RunStore, store_db: str, how: str
) -> None:
    store.create(new_run("r1", 1.0)).unwrap()
    execute(store_db, "UPDATE runs SET status = 'ready', owner = NULL, lease_until = NULL, updated = 2.0")
    if how == "claim":
        store.claim("r1", "me:1", now=7.0, until=1e12).unwrap()
    else:
        assert isinstance(store, RunQueue)
        claimed = store.claim_next(("m:M",), "me:1", 7.0, 1e12)
        taken = claimed.unwrap()
        assert taken is not None and taken.run_id == "r1"
    record = store.get("r1").unwrap()
    assert (record.status, record.updated) == (RunStatus.RUNNING, 7.0)
    assert [r.run_id for r in updates_since(store, (2.0, "r1"), 10).unwrap().records] == ["r1"]
