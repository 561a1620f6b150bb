"""The AG-UI endpoint inside the run server (create_app): its token, its error shape, and the run API
showing the stored run an AG-UI request started."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

import httpx
import pytest

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server import ROUTERS, create_app
from agentsm_fn.server.agui import agui_router
from tests.agui.agents import weather_agent
from tests.agui.conftest import Lines, Served

Client = Callable[[Mapping[str, object]], Lines]
TOKEN = "agui-test-token-0123456789"
AGENT = weather_agent()
BODY = {
    "threadId": "t",
    "runId": "r-1",
    "messages": [{"id": "u", "role": "user", "content": "Weather in Paris?"}],
}


@pytest.fixture
def served(store: SqliteStore) -> Iterator[Served]:
    app = create_app(store, [AGENT.durable], token=TOKEN, routers=(*ROUTERS, agui_router([AGENT])))
    server = Served(app)
    yield server
    server.stop()


def test_without_the_token_nothing_runs(served: Served, store: SqliteStore) -> None:
    response = httpx.post(served.url(f"/agui/{AGENT.name}"), json=BODY)
    assert response.status_code == 401 and set(response.json()) == {"error"}
    assert store.runs().unwrap() == ()


def test_a_malformed_body_is_the_servers_422_naming_the_field(served: Served, store: SqliteStore) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    response = httpx.post(served.url(f"/agui/{AGENT.name}"), json={"runId": "r"}, headers=headers)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["kind"] == "invalid_request" and "threadId" in error["detail"], error
    assert store.runs().unwrap() == ()


def test_the_client_with_the_token_runs_the_agent_and_the_run_api_shows_the_run(
    served: Served, client: Client
) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    plan = {
        "url": served.url(f"/agui/{AGENT.name}"),
        "headers": headers,
        "threadId": "t",
        "messages": BODY["messages"],
        "runs": [{"runId": "r-1"}],
    }
    lines = client(plan)
    events = [line["event"] for line in lines if "event" in line]
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    shown = httpx.get(served.url("/runs/r-1"), headers=headers).json()
    assert shown["status"] == "finished" and shown["machine"] == AGENT.name
