"""A credential-shaped run id for a new run is refused at every door, typed, storing nothing.

The check lives in ``Durable`` (``durable.running.run_ids.refused_run_id``), so the Python API
(``start``, ``astart``, ``enqueue``, a fork's ``start_at``, ``astream``), the command line, the
HTTP server and AG-UI refuse the same ids with the same ``RunIdRefused``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure

from agentsm_fn.commands.runs._support import Exit, exit_for
from agentsm_fn.durable import RunIdRefused, RunStore, SqliteStore
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.stream import Failed, RunEvent
from tests.durable.machines import DURABLE_ORDERS, Order

SECRET = "sk-" + "s3cretvalue" * 3


def _refused(result: object) -> RunIdRefused:
    assert isinstance(result, Failure), result
    refused = result.failure()
    assert isinstance(refused, RunIdRefused), refused
    assert SECRET not in refused.describe()
    return refused


def test_start_astart_enqueue_and_fork_refuse_a_credential_shaped_id_and_store_nothing(
    store: RunStore,
) -> None:
    DURABLE_ORDERS.start(store, Order(items=1), run_id="parent").unwrap()
    before = store.runs().unwrap()
    _refused(DURABLE_ORDERS.start(store, Order(items=1), run_id=SECRET))
    _refused(asyncio.run(DURABLE_ORDERS.astart(store, Order(items=1), run_id=SECRET)))
    _refused(DURABLE_ORDERS.enqueue(store, Order(items=1), run_id=SECRET))  # type: ignore[arg-type]  # both stores queue
    _refused(fork(store, DURABLE_ORDERS.machine, "parent", 1, DURABLE_ORDERS, None, SECRET))
    assert store.runs().unwrap() == before
    assert DURABLE_ORDERS.start(store, Order(items=1), run_id="order-2").unwrap().run_id == "order-2"


def test_a_stream_of_a_new_run_with_such_an_id_is_one_failed_event_that_never_shows_it(
    store: RunStore,
) -> None:
    async def events() -> list[RunEvent]:
        return [event async for event in DURABLE_ORDERS.astream(store, Order(items=1), run_id=SECRET)]

    (only,) = asyncio.run(events())
    assert isinstance(only, Failed) and only.reason == "RunIdRefused" and only.run_id == ""
    assert SECRET not in repr(only.detail) and "looks like a credential" in only.detail
    _refused(only.result)
    assert store.runs().unwrap() == ()


def test_the_command_line_reports_it_as_bad_usage() -> None:
    assert exit_for(RunIdRefused(why="looks like a credential")) is Exit.USAGE


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    run_id=st.one_of(
        st.text(min_size=1, max_size=40),
        st.from_regex(r"(sk-|ghp_|AKIA)[A-Za-z0-9]{20,40}", fullmatch=True),
    )
)
def test_an_id_is_refused_exactly_when_redaction_would_change_it(tmp_path: Path, run_id: str) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    try:
        refused = refused_run_id(run_id)
        assert (refused is not None) == (redact_credentials(run_id) != run_id)
        queued = DURABLE_ORDERS.enqueue(store, Order(items=1), run_id=run_id)
        if refused is not None:
            assert queued == Failure(refused) and store.get(run_id).failure() is not None
        elif not isinstance(queued, Failure):
            assert store.get(run_id).unwrap().run_id == run_id
    finally:
        store.close()
