"""A run a guardrail refused ends as a chat frontend expects: the refusal is the assistant's answer."""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

from fastapi import FastAPI
from starlette.testclient import TestClient

from agentsm_fn.agents.guardrails import Guardrail, guardrail
from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import agui_routes, react_agui
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

OWN: Guardrail[str] = guardrail(
    "own-invoices",
    lambda task: "asks for bob's" if "bob" in task else None,
    message="I can only show you your own invoices.",
)
AGENT = AgentBuilder.new("").guard_input(OWN).llm(ScriptedLlm([])).build().unwrap()


def test_a_refused_run_finishes_with_the_refusal_as_the_assistants_text(tmp_path: Path) -> None:
    served = react_agui(AGENT, "tests.agui.test_refusal:REFUSING")
    app = FastAPI()
    body = {
        "threadId": "t",
        "runId": "a-1",
        "messages": [{"id": "u", "role": "user", "content": "bob's invoices"}],
    }
    with closing(SqliteStore.open(tmp_path / "runs.db").unwrap()) as store:
        app.include_router(agui_routes(store, [served]))
        with TestClient(app) as http:
            response = http.post(f"/agui/{served.name}", json=body)
        (record,) = store.runs().unwrap()
    events = [json.loads(part.removeprefix("data: ")) for part in response.text.strip().split("\n\n")]
    kinds = [e["type"] for e in events]
    assert "RUN_ERROR" not in kinds and kinds[-1] == "RUN_FINISHED"
    assert events[-1]["result"] == "I can only show you your own invoices."
    said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == "I can only show you your own invoices."
    assert kinds[-2] == "TEXT_MESSAGE_END" and kinds.count("TEXT_MESSAGE_START") == 1
    assert record.status.value == "failed" and record.state == "Refused"  # the stored run says what happened
