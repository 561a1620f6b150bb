"""A user machine over AG-UI with the official client: memory from the request's state, a yes/no answer
through the protocol's interrupt, and a failure as RUN_ERROR with its typed reason and no credential."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import AguiAgent
from tests.agui.agents import ORDERS_AGUI, SECRET
from tests.agui.conftest import Lines, Served

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]


def _plan(served: Served, state: dict[str, int], runs: Sequence[object]) -> dict[str, object]:
    return {
        "url": served.url(f"/agui/{ORDERS_AGUI.name}"),
        "threadId": "orders",
        "messages": [{"id": "u", "role": "user", "content": "order"}],
        "state": state,
        "runs": runs,
    }


def _events(lines: Lines, run: int) -> list[dict[str, Any]]:
    return [line["event"] for line in lines if line.get("run") == run and "event" in line]


def test_a_yes_no_answer_resumes_a_user_machine(serve: Serve, client: Client, store: SqliteStore) -> None:
    served = serve([ORDERS_AGUI])
    runs = [
        {"runId": "o-1"},
        {"runId": "o-2", "answer": {"status": "resolved", "payload": {"approved": True}}},
    ]
    lines = client(_plan(served, {"items": 2, "approval_over": 5}, runs))
    first = _events(lines, 0)
    outcome = first[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    (interrupt,) = outcome["interrupts"]
    assert interrupt["reason"] == "answer" and interrupt["message"] == "AskApproval"
    assert first[1]["snapshot"]["items"] == 2  # the state the run starts from
    second = _events(lines, 1)
    assert second[-1]["type"] == "RUN_FINISHED" and second[-1]["result"] == {"total": 21, "approved": True}
    end = next(line["end"] for line in lines if line.get("run") == 1 and "end" in line)
    assert end["state"]["approved"] is True and end["state"]["receipts"] == ["receipt-0-10", "receipt-1-11"]
    assert store.get("o-1").unwrap().status.value == "finished"


def test_a_failed_run_is_a_run_error_with_its_typed_reason_and_no_credential(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    served = serve([ORDERS_AGUI])
    lines = client(_plan(served, {"items": 1, "first_item": 95}, [{"runId": "o-bad"}]))
    events = _events(lines, 0)
    last = events[-1]
    assert last["type"] == "RUN_ERROR" and last["code"] == "EffectFailed", last
    assert "ConnectionError" in last["message"] and "[redacted]" in last["message"]
    assert not any(SECRET in str(line) or "sk-live0123456789" in str(line) for line in lines)
    assert store.get("o-bad").unwrap().status.value == "failed"
