"""A client that goes away mid-run does not stop the stored run: it runs on to where it stops."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import httpx

from agentsm_fn.durable import RunStatus, SqliteStore
from agentsm_fn.server.agui import AguiAgent
from tests.agui.agents import blocking_agent
from tests.agui.conftest import Served

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
