"""Everywhere a typed result goes: the store (replay, the codec), GET /runs/{id}, the CLI, the inspector.

The journal keeps the reply; replay reads it back into an ``Invoice`` through the agent's
machine, so the stored run's result is a value of its class again. A memory that holds an
``Invoice`` (a checkpoint, a paused run) is decoded by the durable codec, and a class changed
since is a typed ``CodecFailure`` naming the field.
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
from agentsm_fn.durable import CodecFailureKind, SqliteStore, from_bytes, to_bytes
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.inspector import run_view
from agentsm_fn.server import create_app
from agentsm_fn.server.agui import agui_routes, react_agui
from tests.agents.output import invoices
from tests.agents.output.durables import AGENT, INVOICES
from tests.agents.output.invoices import INVOICE, INVOICE_JSON, Invoice
from tests.server.live import serving

INVOICE_PLAIN = {
    "number": "INV-7",
    "lines": [{"sku": "pen", "quantity": 2, "price": {"amount": 1.5, "currency": "EUR"}}],
    "total": {"amount": 3.0, "currency": "EUR"},
    "note": None,
}


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as opened:
        yield opened


def finished(store: SqliteStore) -> str:
    stored = INVOICES.start(store, AGENT.memory, run_id="inv-1").unwrap()
    assert stored.finished
    return stored.run_id


def test_a_stored_run_replays_to_its_result_of_the_class(store: SqliteStore) -> None:
    run_id = finished(store)
    snapshot = replay_stored(store, INVOICES.machine, run_id).unwrap()
    assert snapshot.memory.result == INVOICE and isinstance(snapshot.memory.result, Invoice)
    assert INVOICES.result_of(snapshot) == INVOICE


def test_the_codec_decodes_a_result_back_to_its_class_and_names_a_changed_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    memory = AGENT.memory.evolve(result=INVOICE, final_answer="{}")
    encoded = to_bytes(memory).unwrap()
    assert from_bytes(encoded, type(memory)).unwrap().result == INVOICE

    @attrs.frozen(kw_only=True)
    class Changed:  # the Invoice of a later version: a field renamed
        invoice_number: str

    Changed.__qualname__ = Changed.__name__ = "Invoice"
    Changed.__module__ = invoices.__name__
    monkeypatch.setattr(invoices, "Invoice", Changed)
    failure = from_bytes(encoded, type(memory)).failure()
    assert failure.kind is CodecFailureKind.VERSION and failure.path == ".result"
    assert failure.detail == (
        "tests.agents.output.invoices:Invoice has no field 'number' any more "
        "(bump __codec_version__ when fields go)"
    )


def test_get_run_carries_the_results_json(store: SqliteStore) -> None:
    run_id = finished(store)
    with serving(create_app(store, [INVOICES])) as url, httpx.Client(base_url=url, timeout=30) as http:
        shown = http.get(f"/runs/{run_id}").json()
    assert shown["status"] == "finished" and shown["result"] == INVOICE_PLAIN


def test_agentsm_runs_show_prints_the_result(store: SqliteStore, tmp_path: Path) -> None:
    run_id = finished(store)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--db", str(tmp_path / "runs.db"), "show", run_id])
    assert code == 0
    line = next(line for line in out.getvalue().splitlines() if line.startswith("result "))
    assert (
        line.startswith("result Invoice ")
        and json.loads(line.removeprefix("result Invoice ")) == INVOICE_PLAIN
    )


def test_the_inspector_shows_the_result_as_a_typed_value(store: SqliteStore) -> None:
    run_id = finished(store)
    record = store.get(run_id).unwrap()
    assert run_view(store, INVOICES, record)["result"] == {"type": "Invoice", "value": INVOICE_PLAIN}


def test_agui_run_finished_carries_the_results_json(store: SqliteStore) -> None:
    served = react_agui(AGENT, "tests.agents.output.durables:INVOICES")
    app = FastAPI()
    app.include_router(agui_routes(store, [served]))
    body = {"threadId": "t", "runId": "a-1", "messages": [{"id": "u", "role": "user", "content": "INV-7?"}]}
    with TestClient(app) as http:
        response = http.post(f"/agui/{served.name}", json=body)
    events = [json.loads(part.removeprefix("data: ")) for part in response.text.strip().split("\n\n")]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"] == INVOICE_PLAIN
    texts = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert json.loads(texts) == json.loads(INVOICE_JSON)  # the reply streamed as text, its value at the end


CHANGED_DURABLE = """
import attrs
from agentsm_fn.agents.react import agent_failure, agent_result
from agentsm_fn.durable import Durable
from agentsm_fn.shell.react_agent import AgentBuilder
from tests.agents.output.durables import INVOICES, InvoiceLlm


@attrs.frozen(kw_only=True)
class Invoice:  # a later version: a field renamed
    invoice_number: str


AGENT = AgentBuilder.new("Extract the invoice").result_type(Invoice).llm(InvoiceLlm()).build().unwrap()
CHANGED = Durable(name=INVOICES.name, machine=AGENT.machine, shell=AGENT.shell, failure=agent_failure,
                  result=agent_result, template=AGENT.memory)
"""


def test_check_reports_a_finished_run_whose_result_no_longer_reads_as_its_class(
    store: SqliteStore, tmp_path: Path
) -> None:
    run_id = finished(store)
    (same,) = check_runs(store, INVOICES.machine, INVOICES.name, INVOICES.result).unwrap()
    assert same.ok and same.status == "finished"
    assert (
        check_runs(store, INVOICES.machine, INVOICES.name).unwrap() == ()
    )  # without a result: unfinished only
    (tmp_path / "changed.py").write_text(CHANGED_DURABLE)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["--db", str(tmp_path / "runs.db"), "check", f"{tmp_path / 'changed.py'}:CHANGED"])
    verdict, summary = out.getvalue().splitlines()
    assert code == 1 and verdict.startswith(f"{run_id} (finished): RESULT CHANGED: ")
    assert "now stops in Correcting (ready), not Done" in verdict
    assert summary.endswith(
        "0 unfinished run(s) of tests.agents.output.durables:INVOICES, 0 would diverge; "
        "1 finished, 1 whose result no longer reads"
    )
