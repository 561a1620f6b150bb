"""A client that goes away mid-run does not stop the stored run: it runs on to where it stops.

Nor does it cost the server anything: nothing is written to its lost connection (asyncio logs no
"socket.send() raised exception."), and once its run stopped the server holds no task for it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from fastapi import FastAPI

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.server.agui import AguiAgent, agui_routes
from tests.agui.agents import ORDERS_AGUI, blocking_agent
from tests.agui.conftest import Served
from tests.server.dropping import counting_send_errors
from tests.server.live import serving_live

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]


def test_a_run_whose_client_left_runs_on_and_is_stored(serve: Serve, store: SqliteStore) -> None:
    release = threading.Event()
    agent = blocking_agent(release)
    served = serve([agent])
    body = {
        "threadId": "t",
        "runId": "left",
        "messages": [{"id": "u", "role": "user", "content": "wait, then answer"}],
    }
    with (
        httpx.Client(timeout=10) as http,
        http.stream("POST", served.url(f"/agui/{agent.name}"), json=body) as response,
    ):
        assert response.status_code == 200
        first = next(response.iter_lines())
        assert '"RUN_STARTED"' in first
    release.set()  # the tool the run is blocked in returns only after the client has gone
    stopped = threading.Event()
    for _ in range(1000):  # bounded wait on the store (the run is created at its first write)
        if store.get("left").map(lambda record: record.status).value_or(None) is RunStatus.FINISHED:
            break
        stopped.wait(0.01)
    record = store.get("left").unwrap()
    assert record.status is RunStatus.FINISHED, record


def test_clients_that_drop_agui_runs_mid_stream_cost_the_server_nothing(store: SqliteStore) -> None:
    app = FastAPI()
    app.include_router(agui_routes(store, [ORDERS_AGUI]))
    runs = [f"dropped-{n}" for n in range(4)]
    with serving_live(app) as live, counting_send_errors() as logged, httpx.Client(timeout=10) as http:
        for run in runs:
            body = {"threadId": "t", "runId": run, "state": {"items": 60}, "messages": []}
            with http.stream("POST", live.url + f"/agui/{ORDERS_AGUI.name}", json=body) as response:
                assert response.status_code == 200
                lines = response.iter_lines()
                assert '"RUN_STARTED"' in next(lines)
                assert any('"STEP_STARTED"' in line for line in lines)  # read until the run moved
            # dropped: the run has far more to say, and goes on to its end without its client
        held = live.held()  # waits for the runs too: they end, and then nothing is held
    assert logged.send_errors == 0, f"{logged.send_errors} lines of writes to lost connections"
    assert logged.others == []
    assert held == []
    for run in runs:
        record = store.get(run).unwrap()
        assert record.status is RunStatus.FINISHED and record.steps > 60
