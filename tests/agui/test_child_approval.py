"""Over AG-UI (the official client), an approval inside a child run ends the parent's run as its own would.

The desk agent's tool is the refunds agent, whose refund needs approval: the AG-UI run ends with
the child's interrupt (``RUN.c1#SEQ``, reason ``tool_approval``, the child's tool call), and the
client's resume answers it once and streams the rest in the same thread: the child runs on, then
the desk finishes with the child's answer. Answering the same interrupt again is a 409. A
grandchild's approval (a run that is not a thread's turn) is answered from the top run too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import httpx
import pytest
from returns.result import Success

from agentsm_fn.durable import RunStatus, SqliteStore, child_run_id, stored_children
from agentsm_fn.server.agui import AguiAgent, agui_for
from tests.agui.conftest import Lines, Served
from tests.teams.approving import DESK, REFUNDED, REFUNDS
from tests.teams.programs import GRAND, Boss

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]


@pytest.fixture(autouse=True)
def refunds() -> Iterator[None]:
    REFUNDED.clear()
    yield
    REFUNDED.clear()


def _run(lines: Lines, run: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    assert not [line for line in lines if "error" in line or "fatal" in line], lines
    events = [line["event"] for line in lines if line.get("run") == run and "event" in line]
    (end,) = [line["end"] for line in lines if line.get("run") == run and "end" in line]
    return events, end


def test_a_childs_approval_is_the_parents_interrupt_and_its_resume_finishes_both(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    served = serve([agui_for(DESK).unwrap(), agui_for(REFUNDS).unwrap()])
    url = served.url(f"/agui/{DESK.name}")
    plan = {
        "url": url,
        "threadId": "desk-chat",
        "messages": [{"id": "u1", "role": "user", "content": "Please refund A-17"}],
        "runs": [
            {"runId": "ask"},
            {"runId": "answer", "answer": {"status": "resolved", "payload": {"approved": True}}},
        ],
    }
    lines = client(plan)
    first, asked = _run(lines, 0)
    (child,) = stored_children(store, "ask").unwrap()
    (interrupt,) = asked["interrupts"]
    assert interrupt["id"].startswith(child.run_id + "#")
    assert (interrupt["reason"], interrupt["toolCallId"]) == ("tool_approval", "r1")
    assert interrupt["message"].startswith('refund({"order": "A-17"})')
    assert first[-1]["type"] == "RUN_FINISHED" and first[-1]["outcome"]["type"] == "interrupt"

    second, done = _run(lines, 1)
    assert second[0]["type"] == "RUN_STARTED" and second[0]["metadata"]["agentsm_fn"]["run"] == "ask"
    steps = [(e["type"], e["stepName"]) for e in second if e["type"].startswith("STEP_")]
    assert ("STEP_FINISHED", f"{child.run_id}/Done") in steps  # the child ran on in this AG-UI run
    assert second[-1]["type"] == "RUN_FINISHED" and second[-1]["outcome"]["type"] == "success"
    assert done["result"] == "Desk: SUCCESS: Refund: SUCCESS: A-17 refunded" and done["interrupts"] == []
    assert REFUNDED == ["A-17"]
    assert [store.get(r).unwrap().status for r in ("ask", child.run_id)] == [RunStatus.FINISHED] * 2

    again = {
        "threadId": "desk-chat",
        "runId": "again",
        "messages": [],
        "resume": [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}],
    }
    refused = httpx.post(url, json=again, timeout=30)
    assert (refused.status_code, refused.json()["error"]["kind"]) == (409, "not_waiting")
    assert REFUNDED == ["A-17"]  # answered once, refunded once


ASKING_GRAND: AguiAgent[Any, Any, Boss] = AguiAgent(durable=GRAND, memory=lambda request: Success(Boss(n=3)))


def test_a_grandchilds_approval_is_answered_from_the_top_run_and_the_chain_finishes(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    served = serve([ASKING_GRAND])
    plan = {
        "url": served.url(f"/agui/{GRAND.name}"),
        "threadId": "grand",
        "messages": [{"id": "u", "role": "user", "content": "go"}],
        "runs": [
            {"runId": "g"},
            {"runId": "g-answer", "answer": {"status": "resolved", "payload": {"approved": True}}},
        ],
    }
    lines = client(plan)
    _, asked = _run(lines, 0)
    asking = child_run_id(child_run_id("g", 0), 0)
    (interrupt,) = asked["interrupts"]
    assert (interrupt["id"], interrupt["reason"]) == (f"{asking}#0", "answer")
    second, _ = _run(lines, 1)
    assert second[-1]["type"] == "RUN_FINISHED" and second[-1]["outcome"]["type"] == "success"
    assert [store.get(r).unwrap().state for r in ("g", child_run_id("g", 0), asking)] == ["DONE"] * 3
