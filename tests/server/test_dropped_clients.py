"""Clients of a live run's events that drop mid-stream and come back cost the server nothing.

Each client lets its run move on, reads a few events and drops its connection while the server
still has events to send, then comes back with ``Last-Event-ID``. Every client gets every event
once, the server writes nothing to a lost connection (asyncio logs no "socket.send() raised
exception."), and once the clients left it holds no task for them: no stream, no follower.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, closing
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.running.streaming import stored_events
from agentsm_fn.server import create_app
from agentsm_fn.stream import history_position
from tests.server.dropping import GATED, GatedRun, SendErrors, counting_send_errors, drop_and_return
from tests.server.live import STARTUP_TIMEOUT, Live, serving_live

RUNS = 4
STEPS = 40
READ = 5
"""Events a client reads before it drops."""
MOVE = 8
"""Steps a client lets its run take (3 events each): the server has about 19 more to send when it drops."""


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"


@pytest.fixture
def store(db: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(db).unwrap()) as opened:
        yield opened


@pytest.fixture
def live(store: SqliteStore) -> Iterator[Live]:
    with serving_live(create_app(store, [GATED], poll_interval=0.01)) as served:
        yield served


@pytest.fixture
def logged() -> Iterator[SendErrors]:
    with counting_send_errors() as counted:
        yield counted


def test_clients_that_drop_mid_stream_get_every_event_once_and_cost_nothing(
    db: Path, store: SqliteStore, live: Live, logged: SendErrors
) -> None:
    runs = [GatedRun(db, f"live-{n}", STEPS) for n in range(RUNS)]
    with ThreadPoolExecutor(RUNS) as pool:
        visits = list(pool.map(lambda run: drop_and_return(live.url, run, READ, MOVE, 4 * STEPS), runs))
    for run in runs:
        run.finish()
    held = live.held()
    for run, visit in zip(runs, visits, strict=True):
        stored = stored_events(store, GATED, run.run_id).unwrap()
        expected = [p for p in map(history_position, stored) if p is not None]
        assert visit.ended and list(visit.positions) == expected  # every event once, in order
        assert visit.connections > STEPS * 3 // (2 * READ)  # it dropped many times, mid-stream
    assert logged.send_errors == 0, f"{logged.send_errors} lines of writes to lost connections"
    assert logged.others == []
    assert held == []


def test_a_live_runs_follower_is_let_go_when_its_last_client_left(
    db: Path, store: SqliteStore, live: Live, logged: SendErrors
) -> None:
    runs = [GatedRun(db, f"live-{n}", STEPS) for n in range(RUNS)]
    with ExitStack() as clients:
        reading = []  # each client's events as it reads them (an iterator dropped would close its response)
        for run in runs:
            for _ in range(3):  # three clients of each run, each reading its first event
                http = clients.enter_context(httpx.Client(timeout=STARTUP_TIMEOUT))
                source = clients.enter_context(
                    connect_sse(http, "GET", f"{live.url}/runs/{run.run_id}/events")
                )
                reading.append(source.iter_sse())
                assert next(reading[-1]).event != "error"
            run.gate.release(MOVE)  # the run moves on: the server has events to send to each
        following = live.held(timeout=0)
        assert following.count("Poller._run") == RUNS  # one follower per run, shared by its clients
    held = live.held()  # every client dropped: the runs are live, waiting at their gates
    assert held == []
    assert not any(run.finished.is_set() for run in runs)
    visits = [drop_and_return(live.url, run, READ, STEPS, 4 * STEPS) for run in runs]
    assert all(visit.ended for visit in visits)  # a client that comes back gets the rest from a new follower
    for run in runs:
        run.finish()
    assert live.held() == []
    assert logged.send_errors == 0 and logged.others == []
