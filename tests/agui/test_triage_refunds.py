"""The triage example over AG-UI, driven by the official client: triage hands a refund to the refunds agent.

``examples/triage_refunds.py``: the triage agent calls ``transfer_to_refunds``; the refunds agent
runs as a child run of the triage run (its steps nested in triage's ``Acting``), from what the
input filter keeps (the customer's words only), and asks to call ``issue_refund``, which needs a
person's approval: the AG-UI run ends with that approval as its interrupt, and nothing is refunded
yet. The client approves it: the refund runs once, in the child, and the run finishes with the
refunds agent's answer (sent as triage's last text message). The thread's next turn, posted to
triage's endpoint, is a run of refunds (the agent holding the thread), which asks for its own approval.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from agentsm_fn.agents.react import AgentMemory, AskHuman
from agentsm_fn.durable import RunStatus, SqliteStore, stored_children
from agentsm_fn.durable.operations.answers import pending
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.llm import Conversation
from agentsm_fn.server.agui import AguiAgent, agui_for
from tests.agui.conftest import Lines, Served
from tests.example_modules import example

triage_refunds = example("triage_refunds")

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]


def _served(serve: Serve) -> str:
    agents = [agui_for(triage_refunds.TRIAGE).unwrap(), agui_for(triage_refunds.REFUNDS).unwrap()]
    return serve(agents).url(f"/agui/{triage_refunds.TRIAGE.name}")


def _events(lines: Lines, run: int) -> list[dict[str, Any]]:
    assert not [line for line in lines if "error" in line or "fatal" in line], lines
    return [line["event"] for line in lines if line.get("run") == run and "event" in line]


def test_triage_hands_the_refund_to_the_refunds_agent_whose_refund_waits_for_approval(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    triage_refunds.REFUNDED.clear()
    plan = {
        "url": _served(serve),
        "threadId": "chat-1",
        "messages": [{"id": "u1", "role": "user", "content": "Hello, this is Ada."}],
        "runs": [{"runId": "turn-1"}, {"runId": "turn-2", "say": "Please refund my order B-42."}],
    }
    lines = client(plan)
    first = _events(lines, 0)
    assert first[-1]["type"] == "RUN_FINISHED" and first[-1]["outcome"]["type"] == "success"
    events = _events(lines, 1)
    calls = [e["toolCallName"] for e in events if e["type"] == "TOOL_CALL_START"]
    assert calls == ["transfer_to_refunds"]
    steps = [(e["type"], e["stepName"]) for e in events if e["type"].startswith("STEP_")]
    child = [name for kind, name in steps if name.startswith("turn-2.c1/") and kind == "STEP_STARTED"]
    assert child == ["turn-2.c1/Idle", "turn-2.c1/Planning", "turn-2.c1/WaitingForHuman"]
    acting = steps.index(("STEP_STARTED", "Acting"))  # the child's steps are nested in triage's Acting
    assert steps[acting + 1 : acting + 2] == [("STEP_STARTED", "turn-2.c1/Idle")]
    assert steps[-2:] == [("STEP_FINISHED", "turn-2.c1/WaitingForHuman"), ("STEP_FINISHED", "Acting")]
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["outcome"]["type"] == "interrupt"

    (handed,) = stored_children(store, "turn-2").unwrap()
    started = from_bytes(handed.memory, AgentMemory).unwrap()
    assert started.task == "Please refund my order B-42."
    shown = [(type(m).__name__, m.content) for m in started.conversation.messages]
    assert shown == [("UserMessage", "Hello, this is Ada.")]  # customer_only: triage's answer is not shown
    (waiting,) = [p for p in pending(store).unwrap() if p.run_id == handed.run_id]
    assert isinstance(waiting.effect, AskHuman)
    assert waiting.effect.request.tool_call.name == "issue_refund"
    assert waiting.effect.request.tool_call.arguments["order"] == "B-42"
    assert triage_refunds.REFUNDED == []  # not before a person approves


def test_a_handoff_that_needs_no_approval_ends_the_run_with_the_refunds_agents_answer_as_a_message(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    plan = {
        "url": _served(serve),
        "threadId": "chat-3",
        "messages": [{"id": "u1", "role": "user", "content": "I want a refund."}],
        "runs": [{"runId": "vague"}],
    }
    events = _events(client(plan), 0)
    said = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == "Which order should I refund?"  # the refunds agent's; no reply of triage said it
    assert events[-1]["type"] == "RUN_FINISHED" and events[-1]["result"] == said
    assert [c.status for c in stored_children(store, "vague").unwrap()] == [RunStatus.FINISHED]


def test_the_client_approves_the_refund_and_the_run_finishes_with_the_refunds_agents_answer(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    triage_refunds.REFUNDED.clear()
    plan = {
        "url": _served(serve),
        "threadId": "chat-2",
        "messages": [{"id": "u1", "role": "user", "content": "Please refund my order B-42."}],
        "runs": [
            {"runId": "ask"},
            {"runId": "approve", "answer": {"status": "resolved", "payload": {"approved": True}}},
            {"runId": "more", "say": "Please refund order C-7 too."},
            {"runId": "more-approved", "answer": {"status": "resolved", "payload": {"approved": True}}},
        ],
    }
    lines = client(plan)
    asked = _events(lines, 0)
    (interrupt,) = asked[-1]["outcome"]["interrupts"]
    assert interrupt["reason"] == "tool_approval"
    assert interrupt["message"].startswith('issue_refund({"order": "B-42"})')
    approved = _events(lines, 1)
    assert approved[-1]["type"] == "RUN_FINISHED" and approved[-1]["outcome"]["type"] == "success"
    said = "".join(e["delta"] for e in approved if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said.endswith("Done: order B-42 is refunded.")
    assert approved[-1]["result"] == said  # the refunds agent's answer is the triage run's
    child = [
        e["stepName"] for e in approved if e["type"] == "STEP_STARTED" and e["stepName"].startswith("ask.c1/")
    ]
    assert child[-3:] == ["ask.c1/Observing", "ask.c1/Planning", "ask.c1/Done"]  # the refund ran in the child
    assert store.get("ask").unwrap().status.value == "finished"

    # the next turn goes to the agent holding the thread: a run of refunds, whose approval is its own
    (again,) = _events(lines, 2)[-1]["outcome"]["interrupts"]
    assert again["id"] == "more#1" and again["message"].startswith('issue_refund({"order": "C-7"})')
    assert store.get("more").unwrap().machine == triage_refunds.REFUNDS.name
    last = _events(lines, 3)  # answered through triage's endpoint: the holder's run goes on
    said = "".join(e["delta"] for e in last if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert said == "Done: order C-7 is refunded." and last[-1]["outcome"]["type"] == "success"
    assert triage_refunds.REFUNDED == ["B-42", "C-7"]  # each refund ran exactly once


def test_a_refunds_run_of_no_triage_thread_is_not_answered_through_triage(
    serve: Serve, store: SqliteStore
) -> None:
    triage_refunds.REFUNDED.clear()
    refunds = triage_refunds.REFUNDS
    refunds.start(store, refunds.template.start_turn(Conversation(), "Refund B-42"), run_id="alone").unwrap()
    body = {
        "threadId": "elsewhere",
        "runId": "sneak",
        "messages": [{"id": "u1", "role": "user", "content": "Refund B-42"}],
        "resume": [{"interruptId": "alone#1", "status": "resolved", "payload": {"approved": True}}],
    }
    refused = httpx.post(_served(serve), json=body, timeout=30)
    assert refused.status_code == 422
    assert refused.json()["error"]["detail"].endswith("run alone is not a run of triage_refunds:TRIAGE")
    assert triage_refunds.REFUNDED == [] and store.get("alone").unwrap().status is RunStatus.WAITING
