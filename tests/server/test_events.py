"""``GET /runs/{id}/events``: Server-Sent Events of a run, over a real server and a real SSE client."""

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

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.running.streaming import stored_events
from agentsm_fn.server import create_app
from agentsm_fn.stream import RunEvent, event_from_json, event_to_json, history_position
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import STARTUP_TIMEOUT, orders_store, serving
from tests.server.paced import PACED_RUNS

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(orders_store(tmp_path / "runs.db")) as opened:
        yield opened


@pytest.fixture
def url(store: SqliteStore) -> Iterator[str]:
    with serving(create_app(store, [DURABLE_ORDERS, PACED_RUNS], poll_interval=0.01)) as base:
        yield base


def _read(url: str, run_id: str, headers: dict[str, str] | None = None) -> list[ServerSentEvent]:
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/runs/{run_id}/events", headers=headers or {}) as source,
    ):
        assert source.response.headers["content-type"].startswith("text/event-stream")
        return list(source.iter_sse())


def _history(events: list[ServerSentEvent]) -> list[RunEvent]:
    """The history events among ``events`` (those with a position), decoded."""
    decoded = [event_from_json(event.data).unwrap() for event in events]
    return [event for event in decoded if history_position(event) is not None]


def _types(events: list[ServerSentEvent]) -> list[str]:
    return [json.loads(event.data)["type"] for event in events]


def test_a_finished_run_streams_its_whole_history_then_ends(url: str, store: SqliteStore) -> None:
    sent = _read(url, "done-0")
    expected = stored_events(store, DURABLE_ORDERS, "done-0").unwrap()
    assert [event.data for event in sent] == [event_to_json(event) for event in expected]
    # A history event's id is its position; the standing Finished has none, so SSE keeps the last id
    assert [event.id for event in sent] == [*(str(n) for n in range(len(sent) - 1)), str(len(sent) - 2)]
    assert _types(sent)[0] == "RunStarted" and _types(sent)[-1] == "Finished"


def test_last_event_id_gives_what_was_missed_and_nothing_twice(url: str) -> None:
    whole = _read(url, "done-0")
    for last in (0, 3, len(whole) - 2):
        rest = _read(url, "done-0", {"Last-Event-ID": str(last)})
        assert [e.data for e in rest] == [e.data for e in whole[last + 1 :]]
    bad = httpx.get(f"{url}/runs/done-0/events", headers={"Last-Event-ID": "x1"})
    assert bad.status_code == 422 and bad.json()["error"]["kind"] == "invalid_last_event_id"
    assert httpx.get(f"{url}/runs/nope/events").status_code == 404


def test_a_waiting_run_streams_where_it_waits_then_its_continuation_from_another_process(
    url: str, store: SqliteStore, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    db = str(tmp_path / "runs.db")
    seen: list[ServerSentEvent] = []
    with (
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
        connect_sse(http, "GET", f"{url}/runs/wait-0/events") as source,
    ):
        events = source.iter_sse()
        for event in events:
            seen.append(event)
            if json.loads(event.data)["type"] == "AwaitingOutcome":
                break
        approve = [
            sys.executable,
            "-m",
            "agentsm_fn.commands.runs",
            "--db",
            db,
            "approve",
            "wait-0",
            "4",
            "--resume",
        ]
        done = subprocess.run(
            approve, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
        )
        assert done.returncode == 0, done.stderr
        seen += list(events)  # the stream ends once the run is finished
    history = _history(seen)
    assert [history_position(event) for event in history] == list(range(len(history)))  # once each, in order
    assert _types(seen)[-1] == "Finished" and "AwaitingOutcome" in _types(seen)
    final = stored_events(store, DURABLE_ORDERS, "wait-0").unwrap()
    assert history == [event for event in final if history_position(event) is not None]


def test_a_run_executing_in_another_process_streams_from_the_store(url: str, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.server.paced", str(tmp_path / "runs.db"), "paced-1", "3"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert worker.stdin is not None and worker.stdout is not None
    try:
        assert worker.stdout.readline().strip() == "performing 0"  # its started row is stored: the run exists
        seen: list[str] = []
        with (
            httpx.Client(timeout=STARTUP_TIMEOUT) as http,
            connect_sse(http, "GET", f"{url}/runs/paced-1/events") as source,
        ):
            events = source.iter_sse()
            for n in range(3):
                requested = 0
                for event in events:  # the events up to effect n's request arrive while effect n waits
                    seen.append(event.data)
                    assert event.event != "error", event.data
                    if json.loads(event.data)["type"] == "EffectRequested":
                        requested += 1
                        if requested == 1:
                            break
                worker.stdin.write("go\n")
                worker.stdin.flush()
                expected = "finished" if n == 2 else f"performing {n + 1}"
                assert worker.stdout.readline().strip() == expected
            seen += [event.data for event in events]
    finally:
        worker.stdin.close()
        worker.wait(STARTUP_TIMEOUT)
        worker.stdout.close()
    types = [json.loads(data)["type"] for data in seen]
    assert types.count("EffectRequested") == 3 and types.count("EffectCompleted") == 3
    assert types[0] == "RunStarted" and types[-1] == "Finished"
    positions = [history_position(event_from_json(data).unwrap()) for data in seen[:-1]]
    assert positions == list(range(len(positions)))


def test_many_clients_of_one_run_share_one_follower_and_each_gets_everything(url: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        streams = list(pool.map(lambda _: [e.data for e in _read(url, "done-1")], range(8)))
    assert all(stream == streams[0] for stream in streams) and len(streams[0]) > 5


def test_an_answer_that_resumes_in_the_background_answers_at_once_and_the_stream_shows_the_rest(
    url: str, store: SqliteStore
) -> None:
    body = {"decision": "approve", "resume": True, "wait": False}
    answered = httpx.post(f"{url}/runs/wait-0/pending/4/answer", json=body, timeout=STARTUP_TIMEOUT)
    assert answered.status_code == 202 and answered.json()["run_id"] == "wait-0"
    sent = _read(url, "wait-0")  # ends when the run is finished, wherever it was when the stream began
    assert _types(sent)[-1] == "Finished"
    final = stored_events(store, DURABLE_ORDERS, "wait-0").unwrap()
    assert _history(sent) == [event for event in final if history_position(event) is not None]


@pytest.fixture(scope="module")
def finished_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    store = orders_store(tmp_path_factory.mktemp("sse") / "runs.db", finished=1, waiting=0)
    with closing(store), serving(create_app(store, [DURABLE_ORDERS])) as base:
        yield base


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(last=st.integers(min_value=-1, max_value=40), as_query=st.booleans())
def test_any_last_event_id_resumes_exactly_after_it(finished_url: str, last: int, as_query: bool) -> None:
    whole = [event.data for event in _read(finished_url, "done-0")]
    history, standing = whole[:-1], whole[-1:]  # a finished run: its history, then Finished
    if as_query:
        with (
            httpx.Client(timeout=STARTUP_TIMEOUT) as http,
            connect_sse(http, "GET", f"{finished_url}/runs/done-0/events", params={"after": last}) as source,
        ):
            rest = [event.data for event in source.iter_sse()]
    else:
        rest = [event.data for event in _read(finished_url, "done-0", {"Last-Event-ID": str(last)})]
    assert rest == history[last + 1 :] + standing
