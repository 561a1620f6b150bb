"""Everywhere a plan-and-execute agent's typed result goes: store, server, CLI, inspector, AG-UI.

The agent declares its result (``plan_execute_result``, as the ReAct agent's ``agent_result``),
and the generic paths show it: replay reads the journal's reply back into an ``Invoice``
through the agent's machine, the codec decodes a memory holding one, and the server, the
inspector, ``agentsm-runs show`` and AG-UI's ``RUN_FINISHED.result`` carry its JSON.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import attrs
import httpx
import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from agentsm_fn.commands.runs.commands import main
from agentsm_fn.durable import SqliteStore, from_bytes, to_bytes
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.inspector import run_view
from agentsm_fn.server import create_app
from agentsm_fn.server.agui import agui_routes, plan_execute_agui
from tests.agents.output.durables import PLAN_INVOICES, PLANNER
from tests.agents.output.invoices import INVOICE, Invoice
from tests.durable.test_typed_results import INVOICE_PLAIN
from tests.server.live import serving


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


def finished(store: SqliteStore) -> str:
    stored = PLAN_INVOICES.start(store, PLANNER.memory("Extract INV-7"), run_id="plan-inv-1").unwrap()
    assert stored.finished and stored.snapshot.state.name == "FINALIZE"
    return stored.run_id


def test_a_stored_run_replays_to_its_result_of_the_class_and_the_codec_keeps_it(store: SqliteStore) -> None:
    run_id = finished(store)
    snapshot = replay_stored(store, PLAN_INVOICES.machine, run_id).unwrap()
    assert isinstance(snapshot.memory.result, Invoice) and PLAN_INVOICES.result_of(snapshot) == INVOICE
    memory = attrs.evolve(PLANNER.memory("x"), result=INVOICE)
    assert from_bytes(to_bytes(memory).unwrap(), type(memory)).unwrap().result == INVOICE


def test_get_run_the_cli_and_the_inspector_show_the_result(store: SqliteStore, tmp_path: Path) -> None:
    run_id = finished(store)
    with serving(create_app(store, [PLAN_INVOICES])) as url, httpx.Client(base_url=url, timeout=30) as http:
        shown = http.get(f"/runs/{run_id}").json()
    assert shown["status"] == "finished" and shown["result"] == INVOICE_PLAIN
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--db", str(tmp_path / "runs.db"), "show", run_id]) == 0
    line = next(line for line in out.getvalue().splitlines() if line.startswith("result "))
    assert json.loads(line.removeprefix("result Invoice ")) == INVOICE_PLAIN
    record = store.get(run_id).unwrap()
    assert run_view(store, PLAN_INVOICES, record)["result"] == {"type": "Invoice", "value": INVOICE_PLAIN}


def test_agui_run_finished_carries_the_results_json(store: SqliteStore) -> None:
    served = plan_execute_agui(PLANNER, "tests.agents.output.durables:PLAN_INVOICES")
    app = FastAPI()
    app.include_router(agui_routes(store, [served]))
    body = {"threadId": "t", "runId": "p-1", "messages": [{"id": "u", "role": "user", "content": "INV-7?"}]}
    with TestClient(app) as http:
        response = http.post(f"/agui/{served.name}", json=body)
    events = [json.loads(part.removeprefix("data: ")) for part in response.text.strip().split("\n\n")]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"] == INVOICE_PLAIN
    assert store.get("p-1").unwrap().status.value == "finished"
