"""A seq, step or limit no database column holds is "no such entry" on every store, never an exception."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.commands.runs._support import Exit
from agentsm_fn.durable import RunStore, open_store
from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused
from agentsm_fn.durable.stores.protocol.pages import RunQuery, runs_page
from tests.durable.machines import DURABLE_ORDERS, Order
from tests.durable.test_cli import cli

BEYOND = st.one_of(st.integers(min_value=2**63), st.integers(max_value=-(2**63) - 1))
"""Ints outside a 64-bit INTEGER (SQLite) or BIGINT (PostgreSQL) column."""

UNSTORED = st.one_of(BEYOND, st.integers(min_value=5, max_value=2**63 - 1), st.integers(max_value=-1))
"""Entries a run with four of them does not have."""

_FUNCTION_STORE = settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
"""The store is only read (a refused answer changes nothing), so one store serves every example."""


def _with_a_waiting_run(store: RunStore) -> None:
    DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id="wait-1").unwrap()


@_FUNCTION_STORE
@given(seq=UNSTORED)
def test_an_answer_to_an_entry_no_run_has_is_refused_as_no_such_entry(store: RunStore, seq: int) -> None:
    if not store.runs().unwrap():
        _with_a_waiting_run(store)
    refused = store.answer("wait-1", seq, b"\xc3", 1.0).failure()
    assert isinstance(refused, AnswerRefused) and refused.kind is AnswerRefusal.NOTHING_WAITS
    assert "has no entry" in refused.why
    assert [r.seq for r in store.journal("wait-1", seq).unwrap()] == ([0, 1, 2, 3, 4] if seq < 0 else [])


@_FUNCTION_STORE
@given(limit=BEYOND)
def test_a_page_limit_beyond_the_columns_range_is_no_exception(store: RunStore, limit: int) -> None:
    if not store.runs().unwrap():
        _with_a_waiting_run(store)
    page = runs_page(store, RunQuery(limit=limit)).unwrap()
    assert [r.run_id for r in page] == (["wait-1"] if limit > 0 else [])


@_FUNCTION_STORE
@given(seq=UNSTORED)
def test_approve_of_an_entry_no_run_has_exits_4_on_every_store(store_db: str, seq: int) -> None:
    store = open_store(store_db).unwrap()
    if not store.runs().unwrap():
        _with_a_waiting_run(store)
    store.close()
    code, out, err = cli("--db", store_db, "approve", "wait-1", "--", str(seq))
    assert (code, out) == (int(Exit.REFUSED), "")
    assert f"entry {seq} refused: it has no such entry" in err and "Traceback" not in err


UNDIGESTIBLE = st.one_of(st.integers(min_value=2**64), st.integers(max_value=-(2**63) - 1))
"""Ints no effect can be journaled with (the digest's msgpack holds -2**63 .. 2**64 - 1)."""


@_FUNCTION_STORE
@given(value=UNDIGESTIBLE)
def test_fork_set_of_an_int_a_run_cannot_store_is_a_usage_error_and_starts_nothing(
    store_db: str, value: int
) -> None:
    store = open_store(store_db).unwrap()
    if not store.runs().unwrap():
        DURABLE_ORDERS.start(store, Order(items=2), run_id="done-1").unwrap()
    before = store.runs().unwrap()
    code, out, err = cli("--db", store_db, "fork", "done-1", "1", "--set", f"price={value}")
    assert (code, out) == (int(Exit.USAGE), "")
    assert "--set price: a stored run cannot hold it" in err and "(Order.price is int)" in err
    assert store.runs().unwrap() == before
    store.close()
