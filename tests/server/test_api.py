"""The JSON API against a real server (uvicorn on 127.0.0.1) with a real HTTP client (httpx)."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result

from agentsm_fn.durable import JournalRow, RunStatus, SqliteStore, StoreFailure
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.server import create_app
from tests.durable.machines import DURABLE_ORDERS, ORDERS
from tests.server.live import orders_store, serving
from verification import verify


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(orders_store(tmp_path / "runs.db", finished=5, waiting=2)) as opened:
        yield opened


@pytest.fixture
def client(store: SqliteStore) -> Iterator[httpx.Client]:
    with serving(create_app(store, [DURABLE_ORDERS])) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http


def test_pages_walk_every_run_once_newest_first(client: httpx.Client, store: SqliteStore) -> None:
    seen: list[str] = []
    cursor: str | None = None
    while True:
        params = {"limit": 2} | ({"cursor": cursor} if cursor else {})
        page = client.get("/runs", params=params).raise_for_status().json()
        assert len(page["runs"]) <= 2
        seen += [run["run_id"] for run in page["runs"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == [record.run_id for record in store.runs().unwrap()]
    assert len(seen) == len(set(seen)) == 7


def test_the_list_filters_by_status_and_machine(client: httpx.Client) -> None:
    waiting = client.get("/runs", params={"status": "waiting"}).json()["runs"]
    assert sorted(run["run_id"] for run in waiting) == ["wait-0", "wait-1"]
    assert {run["state"] for run in waiting} == {"APPROVING"}
    assert client.get("/runs", params={"machine": "no:such"}).json() == {"runs": [], "next": None}
    mine = client.get("/runs", params={"machine": DURABLE_ORDERS.name, "limit": 500}).json()["runs"]
    assert len(mine) == 7


def test_bad_query_strings_are_422_that_name_the_parameter(client: httpx.Client) -> None:
    for params, says in (
        ({"status": "sleeping"}, "status"),
        ({"limit": 0}, "limit"),
        ({"limit": "many"}, "limit"),
        ({"cursor": "not-a-cursor"}, "cursor"),
    ):
        answer = client.get("/runs", params=params)
        assert answer.status_code == 422, params
        assert says in answer.json()["error"]["detail"]


def test_one_run_its_trace_and_its_journal(client: httpx.Client, store: SqliteStore) -> None:
    run = client.get("/runs/done-0").json()
    assert (run["status"], run["state"], run["machine"]) == ("finished", "DONE", DURABLE_ORDERS.name)
    trace = client.get("/runs/done-0/trace").json()
    replayed = replay_stored(store, ORDERS, "done-0").unwrap().trace
    assert [(t["step"], t["state"], t["event"], t["target"]) for t in trace] == [
        (e.step, e.state, e.event, e.target) for e in replayed
    ]
    journal = client.get("/runs/done-0/journal").json()
    assert [j["seq"] for j in journal] == [0, 1, 2, 3]
    assert journal[0]["effect"].startswith("Lookup") and journal[0]["outcome"] == "int"
    missing = client.get("/runs/nope")
    assert missing.status_code == 404 and missing.json()["error"]["kind"] == "run_not_found"


def test_state_after_step_n_is_the_replay_of_the_journal(client: httpx.Client, store: SqliteStore) -> None:
    for step in (0, 2, 5):
        state = client.get("/runs/done-0/state", params={"step": step}).json()
        snapshot = replay_stored(store, ORDERS, "done-0", step).unwrap()
        assert (state["steps"], state["state"]) == (snapshot.steps, snapshot.state.name)
        assert state["memory"]["total"] == snapshot.memory.total
        assert state["memory"]["receipts"] == list(snapshot.memory.receipts)
    beyond = client.get("/runs/done-0/state", params={"step": 999})
    assert beyond.status_code == 404 and "reaches step" in beyond.json()["error"]["detail"]
    waiting = client.get("/runs/wait-0/state").json()
    assert (waiting["status"], waiting["pending"]) == ("awaiting", "AskApproval")


def test_a_new_run_starts_from_json_memory_converted_by_its_field_types(
    client: httpx.Client, store: SqliteStore
) -> None:
    started = client.post(
        "/runs", json={"machine": DURABLE_ORDERS.name, "memory": {"items": 3}, "run_id": "n1"}
    )
    assert started.status_code == 201, started.text
    assert (started.json()["run_id"], started.json()["status"]) == ("n1", "finished")
    memory = replay_stored(store, ORDERS, "n1").unwrap().memory
    assert (memory.items, len(memory.receipts)) == (3, 3)
    again = client.post(
        "/runs", json={"machine": DURABLE_ORDERS.name, "memory": {"items": 1}, "run_id": "n1"}
    )
    assert again.status_code == 409


@pytest.mark.parametrize(
    ("memory", "says"),
    [
        ({"items": "two"}, "memory.items: Expected `int`, got `str` (Order.items is int)"),
        ({"items": 1, "receipts": [1]}, "memory.receipts: Expected `str`, got `int`"),
        ({"items": 1, "colour": "red"}, "Order has no field colour"),
        ({}, "memory.items: Order needs this field (Order.items is int)"),
        ({"items": 1, "approved": "yes"}, "(Order.approved is bool | None)"),
    ],
)
def test_a_memory_that_does_not_fit_is_a_422_naming_the_field_and_nothing_is_stored(
    client: httpx.Client, store: SqliteStore, memory: dict[str, object], says: str
) -> None:
    before = store.runs().unwrap()
    answer = client.post("/runs", json={"machine": DURABLE_ORDERS.name, "memory": memory})
    assert answer.status_code == 422
    assert (answer.json()["error"]["kind"], says in answer.json()["error"]["detail"]) == (
        "invalid_memory",
        True,
    )
    assert store.runs().unwrap() == before


def test_an_unknown_machine_is_404_naming_the_served_ones(client: httpx.Client) -> None:
    answer = client.post("/runs", json={"machine": "app:OTHER", "memory": {}})
    assert answer.status_code == 404 and DURABLE_ORDERS.name in answer.json()["error"]["detail"]


def test_fork_with_changed_fields_vectors_included(client: httpx.Client, store: SqliteStore) -> None:
    body = {"step": 1, "set": {"items": 1, "receipts": ["carried"]}, "run_id": "f1"}
    forked = client.post("/runs/done-0/fork", json=body)
    assert forked.status_code == 201, forked.text
    assert (forked.json()["parent"], forked.json()["parent_step"], forked.json()["status"]) == (
        "done-0",
        1,
        "finished",
    )
    memory = replay_stored(store, ORDERS, "f1").unwrap().memory
    assert memory.receipts[0] == "carried" and memory.items == 1


def test_a_bad_fork_is_refused_with_the_clis_errors_and_stores_nothing(
    client: httpx.Client, store: SqliteStore
) -> None:
    before = store.runs().unwrap()
    for body, status, says in (
        (
            {"step": 1, "set": {"items": "four"}},
            422,
            "memory.items: Expected `int`, got `str` (Order.items is int)",
        ),
        ({"step": 1, "set": {"colour": 1}}, 422, "Order has no field colour (fields: items"),
        ({"step": 999}, 404, "run done-0 has no step 999: its journal reaches step "),
        ({"step": -1}, 422, "step"),
        ({"step": 1, "extra": True}, 422, "extra"),
    ):
        answer = client.post("/runs/done-0/fork", json=body)
        assert answer.status_code == status, (body, answer.text)
        assert says in answer.json()["error"]["detail"]
    assert store.runs().unwrap() == before


def test_an_answer_is_taken_once_and_the_run_resumes(client: httpx.Client, store: SqliteStore) -> None:
    pending = client.get("/pending").json()
    assert [(p["run_id"], p["seq"], p["summary"]) for p in pending] == [
        ("wait-0", 4, "AskApproval"),
        ("wait-1", 4, "AskApproval"),
    ]
    first = client.post("/runs/wait-0/pending/4/answer", json={"decision": "approve"})
    assert first.status_code == 200 and first.json()["status"] == "ready"
    second = client.post("/runs/wait-0/pending/4/answer", json={"decision": "reject"})
    assert second.status_code == 409 and second.json()["error"]["kind"] == "answered_already"
    resumed = client.post("/runs/wait-0/resume", json={})
    assert resumed.json()["status"] == "finished"
    assert replay_stored(store, ORDERS, "wait-0").unwrap().memory.approved is True
    finished = client.post("/runs/wait-0/resume", json={})
    assert finished.status_code == 409 and finished.json()["error"]["kind"] == "not_resumable"


def test_an_answer_reads_only_its_own_run_not_every_waiting_one(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_listing() -> Result[tuple[tuple[str, JournalRow], ...], StoreFailure]:
        return Failure(StoreFailure(operation="list waiting", detail="the answer must not list every run"))

    monkeypatch.setattr(store, "waiting", no_listing)
    with serving(create_app(store, [DURABLE_ORDERS])) as url, httpx.Client(base_url=url, timeout=30) as http:
        assert http.get("/pending").status_code == 503  # the listing itself does read them all
        first = http.post("/runs/wait-0/pending/4/answer", json={"decision": "approve", "resume": True})
        assert first.status_code == 200 and first.json()["status"] == "finished", first.text
        second = http.post("/runs/wait-0/pending/4/answer", json={"decision": "reject"})
        assert second.status_code == 409 and second.json()["error"]["kind"] == "answered_already"
        wrong = http.post("/runs/wait-1/pending/4/answer", json={"decision": "modify", "arguments": {}})
        assert wrong.status_code == 422 and wrong.json()["error"]["kind"] == "wrong_answer_type", wrong.text
        nothing = http.post("/runs/wait-1/pending/3/answer", json={"decision": "approve"})
        assert nothing.status_code == 409 and nothing.json()["error"]["kind"] == "nothing_waits", nothing.text
        unknown = http.post("/runs/nope/pending/4/answer", json={"decision": "approve"})
        assert unknown.status_code == 404, unknown.text


def test_two_answers_at_once_one_is_taken_the_other_is_409(client: httpx.Client) -> None:
    def answer(decision: str) -> int:
        return client.post("/runs/wait-1/pending/4/answer", json={"decision": decision}).status_code

    with ThreadPoolExecutor(2) as pool:
        codes = sorted(pool.map(answer, ["approve", "reject"]))
    assert codes == [200, 409]


def test_refused_answers_have_their_own_statuses(client: httpx.Client) -> None:
    wrong = client.post("/runs/wait-0/pending/4/answer", json={"decision": "modify", "arguments": {"a": 1}})
    assert wrong.status_code == 422 and wrong.json()["error"]["kind"] == "wrong_answer_type"
    nothing = client.post("/runs/done-0/pending/2/answer", json={"decision": "approve"})
    assert nothing.status_code == 409 and nothing.json()["error"]["kind"] == "nothing_waits"
    answered_and_resumed = client.post(
        "/runs/wait-0/pending/4/answer", json={"decision": "reject", "resume": True}
    )
    assert answered_and_resumed.json()["status"] == "finished"


def test_recover_runs_on_what_no_process_runs(client: httpx.Client, store: SqliteStore) -> None:
    client.post("/runs/wait-1/pending/4/answer", json={"decision": "approve"}).raise_for_status()
    recovered = client.post("/recover", json={"machines": [DURABLE_ORDERS.name]}).json()
    assert recovered == [
        {"run_id": "wait-1", "machine": DURABLE_ORDERS.name, "status": "finished", "error": None}
    ]
    assert store.get("wait-1").unwrap().status is RunStatus.FINISHED


def test_machines_with_graph_mermaid_and_the_verifiers_report(client: httpx.Client) -> None:
    (summary,) = client.get("/machines").json()
    assert summary["name"] == DURABLE_ORDERS.name and summary["memory"] == "tests.durable.machines:Order"
    detail = client.get(f"/machines/{DURABLE_ORDERS.name}").json()
    assert detail["fingerprint"] == DURABLE_ORDERS.fingerprint
    assert {"source": "CHARGING", "event": "LARGE", "target": "APPROVING"} in detail["graph"]["edges"]
    assert detail["mermaid"].startswith(("stateDiagram", "flowchart", "%%"))
    report = verify(ORDERS)
    assert (detail["report"]["ok"], len(detail["report"]["violations"])) == (
        report.ok,
        len(report.violations),
    )
    assert client.get("/machines/nope").status_code == 404


def test_a_waiting_run_names_the_effect_it_waits_on_as_pending_lists_it(client: httpx.Client) -> None:
    waiting = client.get("/runs/wait-0").json()
    expected = {"run_id": "wait-0", "seq": 4, "type": "AskApproval", "summary": "AskApproval", "path": []}
    assert waiting["status"] == "waiting" and waiting["effects"] == 4
    assert waiting["pending"] == expected == client.get("/pending").json()[0]
    assert client.get("/runs/done-0").json()["pending"] is None
    assert all("pending" not in run for run in client.get("/runs").json()["runs"])  # a list reads no journal
    client.post("/runs/wait-0/pending/4/answer", json={"decision": "approve"}).raise_for_status()
    answered = client.get("/runs/wait-0").json()
    assert (answered["status"], answered["pending"]) == ("ready", None)


def test_the_openapi_document_describes_every_route(client: httpx.Client) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/machines", "/runs", "/runs/{run_id}/state", "/runs/{run_id}/pending/{seq}/answer"} <= set(paths)
    assert set(paths["/runs"]) == {"get", "post"}
    one = paths["/runs/{run_id}"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert one == {"$ref": "#/components/schemas/RunDetail"}
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert {"anyOf": [{"$ref": "#/components/schemas/PendingItem"}, {"type": "null"}]}.items() <= schemas[
        "RunDetail"
    ]["properties"]["pending"].items()
    assert set(schemas["PendingItem"]["properties"]) == {"run_id", "seq", "type", "summary", "path"}


OUT_OF_RANGE = st.one_of(st.integers(max_value=-1), st.integers(min_value=10**12 + 1))

_SHARED = settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
"""Refused requests store nothing, so one server serves every example."""


@_SHARED
@given(seq=OUT_OF_RANGE)
def test_an_answer_to_an_out_of_range_seq_is_a_422_naming_seq(
    client: httpx.Client, store: SqliteStore, seq: int
) -> None:
    before = store.runs().unwrap()
    answer = client.post(f"/runs/wait-0/pending/{seq}/answer", json={"decision": "approve"})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["kind"] == "invalid_request"
    assert "seq" in answer.json()["error"]["detail"]
    assert store.runs().unwrap() == before


@_SHARED
@given(step=st.one_of(st.integers(max_value=-1), st.integers(min_value=10**9 + 1)))
def test_a_fork_or_state_at_an_out_of_range_step_is_a_422_naming_step(
    client: httpx.Client, store: SqliteStore, step: int
) -> None:
    before = store.runs().unwrap()
    for answer in (
        client.post("/runs/done-0/fork", json={"step": step}),
        client.get("/runs/done-0/state", params={"step": step}),
    ):
        assert answer.status_code == 422, answer.text
        assert "step" in answer.json()["error"]["detail"]
    assert store.runs().unwrap() == before


@_SHARED
@given(value=st.one_of(st.integers(min_value=2**64), st.integers(max_value=-(2**63) - 1)))
def test_an_int_a_run_cannot_store_is_a_422_naming_the_field_and_nothing_is_stored(
    client: httpx.Client, store: SqliteStore, value: int
) -> None:
    before = store.runs().unwrap()
    for answer in (
        client.post("/runs/done-0/fork", json={"step": 1, "set": {"price": value}}),
        client.post("/runs", json={"machine": DURABLE_ORDERS.name, "memory": {"items": 1, "price": value}}),
    ):
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["kind"] == "invalid_memory"
        assert "price: a stored run cannot hold it" in answer.json()["error"]["detail"]
        assert "(Order.price is int)" in answer.json()["error"]["detail"]
    assert store.runs().unwrap() == before


def test_a_fork_past_the_runs_last_step_is_a_404_in_the_words_of_state(client: httpx.Client) -> None:
    state = client.get("/runs/done-0/state", params={"step": 99})
    forked = client.post("/runs/done-0/fork", json={"step": 99})
    assert (state.status_code, forked.status_code) == (404, 404)
    assert forked.json()["error"] == state.json()["error"]
    assert state.json()["error"]["kind"] == "no_such_step"
