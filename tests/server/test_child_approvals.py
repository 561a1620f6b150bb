"""Over HTTP, a parent shows the approval its child waits for; answered through the parent, both run on.

``GET /runs/{parent}`` names the child's pending approval (with its ``path``), ``GET
/runs/{parent}/pending`` lists every one; ``POST /runs/{parent}/pending/{seq}/answer`` with the
child's ``run_id`` answers it once (a second answer is a 409 ``answered_already``; a run not
under the parent a 409 ``not_below``), and ``resume`` runs the child on and finishes the parent.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from agentsm_fn.durable import RunStore
from agentsm_fn.server import create_app
from tests.teams.approving import DESK, REFUNDED, REFUNDS


@pytest.fixture
def client(store: RunStore) -> Iterator[TestClient]:
    REFUNDED.clear()
    with TestClient(create_app(store, [DESK, REFUNDS]), base_url="http://127.0.0.1") as served:
        yield served
    REFUNDED.clear()


def test_a_childs_approval_is_shown_and_answered_once_through_its_parent(
    store: RunStore, client: TestClient
) -> None:
    DESK.start(store, DESK.template, run_id="desk").unwrap()
    DESK.start(store, DESK.template, run_id="other").unwrap()
    shown = client.get("/runs/desk").json()
    pending = shown["pending"]
    child = pending["run_id"]
    assert (shown["status"], pending["type"], pending["path"]) == ("waiting", "AskHuman", ["desk"])
    assert child.startswith("desk.c") and pending["summary"] == "AskHuman refund"
    assert client.get("/runs/desk/pending").json() == [pending]
    assert client.get(f"/runs/{child}/pending").json() == [{**pending, "path": []}]
    assert client.get("/runs/nobody/pending").status_code == 404
    url = f"/runs/desk/pending/{pending['seq']}/answer"
    elsewhere = f"/runs/other/pending/{pending['seq']}/answer"
    refused = client.post(elsewhere, json={"decision": "approve", "run_id": child})
    assert (refused.status_code, refused.json()["error"]["kind"]) == (409, "not_below")
    done = client.post(url, json={"decision": "approve", "run_id": child, "resume": True})
    assert done.status_code == 200, done.text
    assert (done.json()["run_id"], done.json()["status"]) == ("desk", "finished")
    again = client.post(url, json={"decision": "reject", "run_id": child})
    assert (again.status_code, again.json()["error"]["kind"]) == (409, "answered_already")
    assert REFUNDED == ["A-17"]  # approved once, refunded once
    finished = client.get("/runs/desk").json()
    assert finished["pending"] is None
    assert finished["result"] == "Desk: SUCCESS: Refund: SUCCESS: A-17 refunded"
    assert client.get(f"/runs/{child}").json()["status"] == "finished"
