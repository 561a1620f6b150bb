"""A parent's event stream carries its children's events (``event: child``), replayed and live."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from httpx_sse import ServerSentEvent, connect_sse

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.durable.running.streaming import stored_events
from agentsm_fn.server import create_app
from agentsm_fn.stream import ChildEvent, EffectRequested, child_event_from_json, event_to_json
from tests.inspector.teams import GRAND
from tests.server.live import STARTUP_TIMEOUT, serving
from tests.teams.programs import CHILD, DELEGATOR, Boss


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


def _read(url: str, run_id: str, query: str = "") -> list[ServerSentEvent]:
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/runs/{run_id}/events{query}") as source,
    ):
        return list(source.iter_sse())


def _children(events: list[ServerSentEvent]) -> list[ChildEvent]:
    return [child_event_from_json(e.data).unwrap() for e in events if e.event == "child"]


def test_a_finished_parent_streams_its_childrens_and_grandchildrens_events(store: SqliteStore) -> None:
    GRAND.start(store, Boss(n=1), run_id="g").unwrap()
    with serving(create_app(store, [GRAND, DELEGATOR, CHILD], poll_interval=0.01)) as url:
        sent = _read(url, "g")
        quiet = _read(url, "g", "?children=false")
    own = [e.data for e in sent if e.event == "message"]
    assert own == [
        event_to_json(e) for e in stored_events(store, GRAND, "g").unwrap()
    ]  # as old clients see it
    assert [e.data for e in quiet] == own
    children = _children(sent)
    requested = [json.loads(d)["position"] for d in own if json.loads(d)["type"] == EffectRequested.__name__]
    assert {c.position for c in children} == {requested[0]} and {c.run_id for c in children} == {"g"}
    stored = {
        "g.c0": stored_events(store, DELEGATOR, "g.c0").unwrap(),
        "g.c0.c0": stored_events(store, CHILD, "g.c0.c0").unwrap(),
    }
    for run_id, parent in (("g.c0", "g"), ("g.c0.c0", "g.c0")):
        mine = [c for c in children if c.child_run_id == run_id]
        assert {c.parent_run_id for c in mine} == {parent}
        assert [c.event for c in mine] == list(stored[run_id])
    assert sent[-1].event == "message" and json.loads(sent[-1].data)["type"] == "Finished"


def test_a_waiting_parents_stream_carries_its_child_live_as_it_runs(
    store: SqliteStore, tmp_path: Path
) -> None:
    # the parent waits, its child is queued
    asyncio.run(DELEGATOR.astart(store, Boss(n=2), run_id="boss", inline=False))
    seen: list[ServerSentEvent] = []
    with (
        serving(create_app(store, [DELEGATOR, CHILD], poll_interval=0.01)) as url,
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/runs/boss/events") as source,
    ):
        events = source.iter_sse()
        for event in events:
            seen.append(event)
            if json.loads(event.data)["type"] == "AwaitingOutcome":
                break
        assert [type(c.event).__name__ for c in _children(seen)] in ([], ["RunStarted"])  # queued, not run
        with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as worker:
            recover(worker, [DELEGATOR, CHILD]).unwrap()  # runs the child, which answers the parent
        seen += list(events)  # ends once the parent finished
    kinds = [type(c.event).__name__ for c in _children(seen)]
    assert kinds[0] == "RunStarted" and kinds[-1] == "Finished" and "EffectCompleted" in kinds
    assert json.loads(seen[-1].data)["type"] == "Finished"
