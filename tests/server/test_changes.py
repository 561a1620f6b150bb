"""``GET /events``: every run's changes as Server-Sent Events, over a real server and a real SSE client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server import create_app
from agentsm_fn.server.runs import pair_cursor, pair_of
from tests.durable.machines import DURABLE_ORDERS, Order
from tests.server.live import STARTUP_TIMEOUT, orders_store, serving

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(orders_store(tmp_path / "runs.db", finished=3, waiting=2)) as opened:
        yield opened


@pytest.fixture
def url(store: SqliteStore) -> Iterator[str]:
    with serving(create_app(store, [DURABLE_ORDERS], poll_interval=0.01)) as base:
        yield base


def _after_sorted(store: SqliteStore, after: tuple[float, str]) -> list[str]:
    """The runs updated after ``after``, in the order the stream sends them."""
    records = sorted(store.runs().unwrap(), key=lambda record: (record.updated, record.run_id))
    return [record.run_id for record in records if (record.updated, record.run_id) > after]


def _read(url: str, count: int, headers: dict[str, str], query: str = "") -> list[ServerSentEvent]:
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/events{query}", headers=headers) as source,
    ):
        assert source.response.headers["content-type"].startswith("text/event-stream")
        found: list[ServerSentEvent] = []
        for event in source.iter_sse():
            found.append(event)
            if len(found) == count:
                return found
    raise AssertionError(f"the stream ended after {len(found)} events")


def test_a_client_that_reconnects_gets_every_run_updated_after_its_last_id_in_order(
    url: str, store: SqliteStore
) -> None:
    first = min(store.runs().unwrap(), key=lambda record: (record.updated, record.run_id))
    last_id = pair_cursor(first.updated, first.run_id)
    expected = _after_sorted(store, (first.updated, first.run_id))
    assert len(expected) == 4
    for headers, query in (({"Last-Event-ID": last_id}, ""), ({}, f"?after={last_id}")):
        sent = _read(url, len(expected), headers, query)
        assert [json.loads(event.data)["run_id"] for event in sent] == expected
        ids = [pair_of(event.id or "") or (0.0, "") for event in sent]
        assert ids == sorted(ids) and all(pair > (first.updated, first.run_id) for pair in ids)
        record = store.get(expected[0]).unwrap()
        assert json.loads(sent[0].data)["status"] == record.status.value


def test_a_run_answered_in_another_process_arrives_as_its_changes(
    url: str, store: SqliteStore, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    approve = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", str(tmp_path / "runs.db")]
    approve += ["approve", "wait-1", "4", "--resume"]
    seen: list[dict[str, object]] = []
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/events", params={"machine": DURABLE_ORDERS.name}) as source,
    ):
        done = subprocess.run(
            approve, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr
        for event in source.iter_sse():
            assert event.event == "message" and event.id
            seen.append(json.loads(event.data))
            if seen[-1]["status"] == "finished":
                break
    assert {change["run_id"] for change in seen} == {"wait-1"}  # no other run changed: none was sent
    final = store.get("wait-1").unwrap()
    assert (seen[-1]["state"], seen[-1]["steps"]) == (final.state, final.steps)
    times = [float(str(change["updated"])) for change in seen]
    assert times == sorted(times)


def test_a_new_run_is_sent(url: str, store: SqliteStore) -> None:
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/events") as source,
    ):
        DURABLE_ORDERS.start(store, Order(items=1), run_id="fresh").unwrap()
        statuses = []
        for event in source.iter_sse():  # it may be seen running, then finished; no other run changed
            change = json.loads(event.data)
            assert change["run_id"] == "fresh"
            statuses.append(change["status"])
            if change["status"] == "finished":
                break
        assert statuses[-1] == "finished"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    given_id=st.text(max_size=60).filter(lambda text: pair_of(text.strip()) is None and text.strip() != "")
)
def test_an_id_this_server_never_sent_is_a_json_422(store: SqliteStore, given_id: str) -> None:
    client = TestClient(create_app(store, [DURABLE_ORDERS]), base_url="http://127.0.0.1")
    by_query = client.get("/events", params={"after": given_id})
    assert by_query.status_code == 422
    assert by_query.json()["error"]["kind"] == "invalid_last_event_id"
    if given_id.isprintable() and given_id.isascii():
        by_header = client.get("/events", headers={"Last-Event-ID": given_id})
        assert by_header.status_code == 422 and by_header.json()["error"]["kind"] == "invalid_last_event_id"


def test_an_empty_machine_filter_is_a_json_422(store: SqliteStore) -> None:
    client = TestClient(create_app(store, [DURABLE_ORDERS]), base_url="http://127.0.0.1")
    refused = client.get("/events", params={"machine": ""})
    assert refused.status_code == 422 and "machine" in refused.json()["error"]["detail"]
