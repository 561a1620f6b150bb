"""A page of runs: the store's own query gives exactly what filtering every run gives, on every store."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import NewRun, RunStatus, RunStore
from agentsm_fn.durable.stores.protocol.pages import RunPages, RunQuery, runs_page

STATUSES = [None, *RunStatus]
MACHINES = [None, "app:A", "app:B", "app:none"]


def _fill(store: RunStore) -> None:
    for n in range(40):  # creation times repeat: ties are ordered by id
        new = NewRun(
            run_id=f"r{n:02d}",
            machine="app:A" if n % 3 else "app:B",
            fingerprint="f",
            memory=b"\x80",
            created=float(n // 4),
            owner="",
            lease_until=0.0,
        )
        store.create(new).unwrap()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    status=st.sampled_from(STATUSES),
    machine=st.sampled_from(MACHINES),
    limit=st.integers(min_value=1, max_value=45),
    after=st.none()
    | st.tuples(st.integers(min_value=-1, max_value=11).map(float), st.sampled_from(["", "r17", "r9"])),
)
def test_a_page_is_the_filtered_runs_after_the_cursor(
    store: RunStore,
    status: RunStatus | None,
    machine: str | None,
    limit: int,
    after: tuple[float, str] | None,
) -> None:
    if not store.runs().unwrap():
        _fill(store)
    assert isinstance(store, RunPages)
    query = RunQuery(status=status, machine=machine, limit=limit, after=after)
    every = [record for record in store.runs().unwrap() if query.admits(record)][:limit]
    assert store.page(query).unwrap() == tuple(every)
    assert runs_page(store, query).unwrap() == tuple(every)


def test_walking_the_pages_gives_every_run_once(store: RunStore) -> None:
    _fill(store)
    assert isinstance(store, RunPages)
    seen: list[str] = []
    after = None
    while True:
        page = store.page(RunQuery(limit=7, after=after)).unwrap()
        seen += [record.run_id for record in page]
        if len(page) < 7:
            break
        after = (page[-1].created, page[-1].run_id)
    assert seen == [record.run_id for record in store.runs().unwrap()]
