"""AG-UI over a thread whose conversation was handed off: the next turn streams the holding agent's answer.

Turn 1 is posted to triage, which hands off to refunds; turn 2, posted to triage's endpoint as a
chat page does, is a run of refunds, and its answer streams to the page as the thread's own would.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import agui_for, agui_routes
from tests.agui.test_threads import Page
from tests.teams.holders import ASKED, BILLING, REFUNDS, TRIAGE


@pytest.fixture
def http(tmp_path: Path) -> Iterator[tuple[TestClient, SqliteStore]]:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    app = FastAPI()
    app.include_router(agui_routes(store, [agui_for(agent).unwrap() for agent in (TRIAGE, REFUNDS, BILLING)]))
    try:
        with TestClient(app) as client:
            yield client, store
    finally:
        store.close()


def test_the_next_turn_streams_the_answer_of_the_agent_that_holds_the_thread(
    http: tuple[TestClient, SqliteStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    client, store = http
    monkeypatch.setattr("tests.agui.test_threads.URL", f"/agui/{TRIAGE.name}")
    page = Page(client, "chat")
    assert page.say("Refund A-17 to:refunds") == 200  # refunds runs as triage's child, its steps nested
    assert page.events[-1]["result"] == "refunds answers after 1 user messages"
    assert any(e.get("stepName", "").startswith("chat.r1.c1/") for e in page.events)
    assert store.thread("chat").unwrap().holder == REFUNDS.name  # kept as the turn ended
    ASKED.clear()
    assert page.say("And the shipping?") == 200
    assert ASKED == [("refunds", "And the shipping?")]
    assert page.answer() == "refunds answers after 2 user messages"  # streamed as text, as triage's is
    said = "".join(e["delta"] for e in page.events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == "refunds answers after 2 user messages"
    assert store.get("chat.r2").unwrap().machine == REFUNDS.name
    assert page.say("My bill to:billing") == 200  # the holder hands on: billing, its child, answers
    assert page.events[-1]["result"] == "billing answers after 3 user messages"
    assert any(e.get("stepName", "").startswith("chat.r3.c1/") for e in page.events)
    assert store.thread("chat").unwrap().holder == BILLING.name
