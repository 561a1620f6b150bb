"""Bad AG-UI requests: a 4xx JSON error that names the problem, never a 500, and nothing written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import agui_routes
from tests.agui.agents import SENT, email_agent

AGENT = email_agent()
URL = f"/agui/{AGENT.name}"


def _body(**changes: object) -> dict[str, object]:
    body: dict[str, object] = {
        "threadId": "t1",
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "Tell the team."}],
    }
    body.update(changes)
    return body


@pytest.fixture
def http(tmp_path: Path) -> Iterator[tuple[TestClient, SqliteStore]]:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    app = FastAPI()
    app.include_router(agui_routes(store, [email_agent()]))
    with TestClient(app) as client:
        yield client, store
    store.close()


def _refusal(response: Any, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) in ({"error"}, {"detail"}), body
    return json.dumps(body)


def _nothing_stored(store: SqliteStore) -> None:
    assert store.runs().unwrap() == ()


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"threadId": None}, "threadId"),
        ({"runId": "a/b"}, "runId"),
        ({"runId": ""}, "runId"),
        ({"runId": "sk-" + "s3cretvalue" * 3}, "runId: looks like a credential"),
        ({"messages": "hi"}, "messages"),
        ({"messages": []}, "messages: no user message"),
        (
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "content": [{"type": "image", "source": {"type": "url", "value": "http://x"}}],
                    }
                ]
            },
            "messages[0].content[0]",
        ),
        (
            {
                "messages": [
                    {
                        "id": "a",
                        "role": "assistant",
                        "toolCalls": [
                            {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{nope"}}
                        ],
                    }
                ]
            },
            "messages[0].toolCalls[0].function.arguments",
        ),
        ({"resume": [{"interruptId": "nothing", "status": "resolved"}]}, "resume[0].interruptId"),
    ],
)
def test_a_malformed_request_is_a_422_naming_the_problem(
    http: tuple[TestClient, SqliteStore], changes: dict[str, object], named: str
) -> None:
    client, store = http
    body = {k: v for k, v in _body(**changes).items() if v is not None}
    assert named in _refusal(client.post(URL, json=body), 422)
    _nothing_stored(store)


def test_an_unknown_agent_is_a_404(http: tuple[TestClient, SqliteStore]) -> None:
    client, store = http
    assert "no AG-UI agent named nope" in _refusal(client.post("/agui/nope", json=_body()), 404)
    _nothing_stored(store)


def test_a_body_that_is_not_json_is_refused(http: tuple[TestClient, SqliteStore]) -> None:
    client, store = http
    _refusal(client.post(URL, content=b"{not json", headers={"content-type": "application/json"}), 422)
    _nothing_stored(store)


def test_a_runid_that_names_a_stored_run_is_a_409_and_the_agent_does_not_run_again(
    http: tuple[TestClient, SqliteStore],
) -> None:
    client, store = http
    assert client.post(URL, json=_body()).status_code == 200
    assert "names a stored run already" in _refusal(client.post(URL, json=_body()), 409)
    assert len(store.runs().unwrap()) == 1


def test_an_answer_is_committed_once_and_a_bad_one_writes_nothing(
    http: tuple[TestClient, SqliteStore],
) -> None:
    client, store = http
    SENT.clear()
    asked = client.post(URL, json=_body())
    last = json.loads(asked.text.strip().split("\n\n")[-1].removeprefix("data: "))
    (interrupt,) = last["outcome"]["interrupts"]
    wrong = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": "yes"}}]
    assert "resume[0].payload.approved" in _refusal(
        client.post(URL, json=_body(runId="r2", resume=wrong)), 422
    )
    assert store.get("r1").unwrap().status.value == "waiting"
    right = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]
    assert client.post(URL, json=_body(runId="r3", resume=right)).status_code == 200
    assert "is not open" in _refusal(client.post(URL, json=_body(runId="r4", resume=right)), 409)
    assert SENT == ["team@example.com"]
    assert [r.run_id for r in store.runs().unwrap()] == ["r1"]


bodies = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    body=bodies
    | st.fixed_dictionaries({"threadId": bodies, "runId": bodies, "messages": bodies})
    | st.fixed_dictionaries(
        {"threadId": st.just("t"), "runId": st.just("r"), "messages": st.lists(bodies, max_size=2)}
    )
)
def test_no_body_gets_a_500_or_writes_a_run_unless_it_is_a_valid_request(
    http: tuple[TestClient, SqliteStore], body: object
) -> None:
    client, store = http
    response = client.post(URL, json=body)
    assert response.status_code in (200, 404, 409, 422), response.text
    if response.status_code != 200:
        _refusal(response, response.status_code)
        _nothing_stored(store)
