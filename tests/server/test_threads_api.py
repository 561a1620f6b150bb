"""``/threads`` against a real server (uvicorn on 127.0.0.1) with a real HTTP client (httpx).

The threads' turns are runs of two conversant machines: the thread tests' chatter (two effects a
turn; a message that begins with ``ask:`` waits for a person's reply) and a counter whose turns
are as long as the message asks (``count to N``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any

import httpx
import pytest
from httpx_sse import connect_sse

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.operations.answers import answer, pending
from agentsm_fn.server import create_app
from tests.durable.machines import DURABLE_ORDERS
from tests.server.dropping import counting_send_errors
from tests.server.live import STARTUP_TIMEOUT, serving, serving_live
from tests.server.tally import TALLY
from tests.threads.chatter import CHATTY

CHAT = CHATTY.name
SECRET = "sk-live0123456789abcdefXYZ"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


@pytest.fixture
def client(store: SqliteStore) -> Iterator[httpx.Client]:
    app = create_app(store, [CHATTY, TALLY, DURABLE_ORDERS], max_body=4096)
    with serving(app) as url, httpx.Client(base_url=url, timeout=STARTUP_TIMEOUT) as http:
        yield http


def send(http: httpx.Client, thread: str, message: str, **more: object) -> httpx.Response:
    return http.post(f"/threads/{thread}/messages", json={"message": message, **more})


def error(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    found: dict[str, Any] = response.json()["error"]
    return found


def test_a_conversation_over_http_each_turn_from_the_turns_before(client: httpx.Client) -> None:
    assert error(send(client, "t1", "hello"), 422)["kind"] == "machine_needed"
    first = send(client, "t1", "hello", machine=CHAT).json()
    assert (first["turn"], first["run"]["status"], first["pending"]) == (0, "finished", None)
    assert [(m["role"], m["content"]) for m in first["messages"]] == [
        ("user", "hello"),
        ("assistant", "hello (after 0)"),
    ]
    for n, text in enumerate(("again", "and again"), start=1):
        made = send(client, "t1", text).json()
        assert made["turn"] == n and made["messages"][-1]["content"] == f"{text} (after {2 * n})"
    shown = client.get("/threads/t1/messages").json()
    assert shown["turns"] == 3 and [(m["turn"], m["role"]) for m in shown["messages"]] == [
        (0, "user"),
        (0, "assistant"),
        (1, "user"),
        (1, "assistant"),
        (2, "user"),
        (2, "assistant"),
    ]
    assert len(client.get("/threads/t1/messages", params={"turn": 0}).json()["messages"]) == 2
    thread = client.get("/threads/t1").json()
    assert (thread["machine"], thread["turns"], thread["last"]["status"]) == (CHAT, 3, "finished")
    page = client.get("/threads/t1/turns", params={"limit": 2}).json()
    assert [t["message"] for t in page["turns"]] == ["hello", "again"] and page["next"] == 2
    rest = client.get("/threads/t1/turns", params={"start": page["next"]}).json()
    assert [t["turn"] for t in rest["turns"]] == [2] and rest["next"] is None
    run = client.get(f"/runs/{rest['turns'][0]['run_id']}").json()  # a turn's run is an ordinary run
    assert run["machine"] == CHAT and run["status"] == "finished"


def test_threads_are_listed_newest_first_a_page_at_a_time_and_filtered(client: httpx.Client) -> None:
    for n in range(5):
        send(client, f"t{n}", "hi", machine=CHAT if n % 2 else TALLY.name)
    seen: list[str] = []
    cursor: str | None = None
    while True:
        page = client.get("/threads", params={"limit": 2} | ({"cursor": cursor} if cursor else {})).json()
        seen += [t["thread_id"] for t in page["threads"]]
        if (cursor := page["next"]) is None:
            break
    assert sorted(seen) == [f"t{n}" for n in range(5)] and len(seen) == 5
    mine = client.get("/threads", params={"machine": CHAT}).json()["threads"]
    assert sorted(t["thread_id"] for t in mine) == ["t1", "t3"]
    assert error(client.get("/threads", params={"cursor": "nonsense"}), 422)["kind"] == "invalid_cursor"


def test_a_message_while_a_turn_waits_is_a_409_naming_it_or_waits_behind_it_when_queued(
    client: httpx.Client, store: SqliteStore
) -> None:
    waiting = send(client, "t1", "ask: may I?", machine=CHAT).json()
    assert waiting["run"]["status"] == "waiting" and waiting["pending"]["run_id"] == waiting["run"]["run_id"]
    busy = error(send(client, "t1", "hello?"), 409)
    assert busy["kind"] == "thread_busy"
    assert busy["turn"] == {
        "thread_id": "t1",
        "turn": 0,
        "run_id": waiting["run"]["run_id"],
        "status": "waiting",
    }
    with ThreadPoolExecutor(1) as pool:
        queued = pool.submit(send, client, "t1", "after you", queue=True)
        while store.thread("t1").unwrap().turns < 2:  # the queued message took its place: turn 1
            assert not queued.done(), queued.result().text
        (asked,) = pending(store).unwrap()
        answer(store, asked.run_id, asked.seq, "yes").unwrap()
        client.post(f"/runs/{asked.run_id}/resume", json={}).raise_for_status()
        made = queued.result(timeout=STARTUP_TIMEOUT).json()
    assert made["turn"] == 1 and made["messages"][-1]["content"] == "after you (after 2)"


def test_fork_edits_a_turn_in_a_new_thread_and_delete_keeps_the_runs_it_shares(client: httpx.Client) -> None:
    for text in ("one", "two", "three"):
        send(client, "t1", text, machine=CHAT)
    forked = client.post("/threads/t1/fork", json={"turn": 1, "message": "TWO", "thread_id": "t2"})
    assert forked.status_code == 201, forked.text
    assert forked.json()["messages"][-1]["content"] == "TWO (after 2)"
    assert [t["message"] for t in client.get("/threads/t2/turns").json()["turns"]] == ["one", "TWO"]
    assert [t["message"] for t in client.get("/threads/t1/turns").json()["turns"]] == ["one", "two", "three"]
    (fork,) = client.get("/threads", params={"parent": "t1"}).json()["threads"]
    assert (fork["thread_id"], fork["parent"], fork["parent_turn"]) == ("t2", "t1", 1)
    again = client.post("/threads/t1/fork", json={"turn": 0, "message": "x", "thread_id": "t2"})
    assert error(again, 409)["kind"] == "thread_exists"
    assert (
        error(client.post("/threads/t1/fork", json={"turn": 7, "message": "x"}), 404)["kind"]
        == "no_such_turn"
    )
    assert (
        error(client.post("/threads/t9/fork", json={"turn": 0, "message": "x"}), 404)["kind"]
        == "thread_not_found"
    )
    deleted = client.delete("/threads/t2").json()
    assert deleted == {"thread_id": "t2", "runs": [forked.json()["run"]["run_id"]]}  # turn 0 is t1's too
    assert error(client.get("/threads/t2"), 404)["kind"] == "thread_not_found"
    assert len(client.get("/threads/t1/messages").json()["messages"]) == 6


def test_refusals_name_the_problem_and_store_nothing(client: httpx.Client, store: SqliteStore) -> None:
    assert error(send(client, "t1", "hi", machine="no:such"), 404)["kind"] == "machine_not_found"
    assert error(send(client, "t1", "hi", machine=DURABLE_ORDERS.name), 422)["kind"] == "not_conversational"
    assert (
        error(send(client, "sk-" + "abcdefghij" * 3, "hi", machine=CHAT), 422)["kind"]
        == "credential_thread_id"
    )
    assert error(send(client, "t1", "x" * 5000, machine=CHAT), 413)["kind"] == "body_too_large"
    assert error(send(client, "t1", "", machine=CHAT), 422)["kind"] == "invalid_request"
    assert error(client.post("/threads/t1/messages", json={"message": "hi", "misspelt": 1}), 422)["kind"]
    assert client.get("/threads").json() == {"threads": [], "next": None}
    send(client, "t1", "hi", machine=CHAT)
    assert error(send(client, "t1", "hi", machine=TALLY.name), 409)["kind"] == "other_machine"


def test_credentials_in_messages_are_shown_redacted(client: httpx.Client) -> None:
    made = send(client, "t1", f"my key is {SECRET}", machine=CHAT)
    for shown in (
        made.text,
        client.get("/threads/t1/turns").text,
        client.get("/threads/t1/messages").text,
        client.get("/threads").text,
    ):
        assert SECRET not in shown and "[redacted]" in shown


def test_a_token_protected_server_refuses_thread_routes_without_it(store: SqliteStore) -> None:
    app = create_app(store, [CHATTY], token="threads-token-0123456789")
    with serving(app) as url, httpx.Client(base_url=url) as http:
        assert error(http.get("/threads"), 401)["kind"] == "unauthorized"
        assert error(http.post("/threads/t1/messages", json={"message": "hi", "machine": CHAT}), 401)
        assert error(http.delete("/threads/t1"), 401)["kind"] == "unauthorized"


def test_a_streamed_turn_sends_its_runs_events_and_refuses_a_busy_thread_first(client: httpx.Client) -> None:
    body = {"message": "count to 3", "machine": TALLY.name}
    with connect_sse(client, "POST", "/threads/t1/messages/stream", json=body) as source:
        assert source.response.status_code == 200
        events = [(sent.id, json.loads(sent.data)) for sent in source.iter_sse()]
    kinds = [event["type"] for _, event in events]
    assert kinds[0] == "RunStarted" and kinds[-1] == "Finished" and kinds.count("EffectCompleted") == 3
    history = [(i, event["position"]) for i, event in events if event["type"] != "Finished"]
    assert [position for _, position in history] == list(range(len(history)))
    assert all(i == str(position) for i, position in history)  # each sent with its id: resumable
    run_id = events[0][1]["run_id"]
    assert client.get("/threads/t1").json()["last"] == {
        "thread_id": "t1",
        "turn": 0,
        "run_id": run_id,
        "message": "count to 3",
        "created": client.get("/threads/t1").json()["last"]["created"],
        "status": "finished",
        "holder": TALLY.name,  # no handoff: its own program holds the conversation
    }
    send(client, "t2", "ask: wait", machine=CHAT)
    refused = client.post("/threads/t2/messages/stream", json={"message": "hi"})
    assert error(refused, 409)["kind"] == "thread_busy"


def test_clients_that_drop_streamed_turns_cost_nothing_and_the_turns_run_to_their_end(
    store: SqliteStore,
) -> None:
    app = create_app(store, [TALLY])
    threads = [f"dropped-{n}" for n in range(3)]
    with (
        serving_live(app) as live,
        counting_send_errors() as logged,
        httpx.Client(timeout=STARTUP_TIMEOUT) as http,
    ):
        for thread in threads:
            body = {"message": "count to 400", "machine": TALLY.name}
            with connect_sse(
                http, "POST", f"{live.url}/threads/{thread}/messages/stream", json=body
            ) as source:
                for got, _ in enumerate(source.iter_sse(), start=1):
                    if got == 5:
                        break  # dropped: the turn has far more to say, and goes on to its end without it
        held = live.held()  # waits for the turns too: they end, and then nothing is held
        for thread in threads:  # each thread takes its next message: its turn ended
            more = http.post(f"{live.url}/threads/{thread}/messages", json={"message": "count to 1"})
            assert more.status_code == 201 and more.json()["turn"] == 1, more.text
    assert logged.send_errors == 0, f"{logged.send_errors} lines of writes to lost connections"
    assert logged.others == []
    assert held == []
    for thread in threads:
        first = store.turns(thread).unwrap()[0]
        assert store.get(first.run_id).unwrap().steps == 401
