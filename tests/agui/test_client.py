"""The official TypeScript client (@ag-ui/client's HttpAgent, run by node) against the AG-UI endpoint."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.server.agui import AguiAgent
from agentsm_fn.server.agui.state import public_state
from tests.agui.agents import ANSWER, SENT, email_agent, weather_agent
from tests.agui.conftest import Lines, Served

Serve = Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]
Client = Callable[[Mapping[str, object]], Lines]


def _user(text: str) -> dict[str, str]:
    return {"id": "u1", "role": "user", "content": text}


def _types(lines: Lines, run: int = 0) -> list[str]:
    return [line["event"]["type"] for line in lines if line.get("run") == run and "event" in line]


def _end(lines: Lines, run: int = 0) -> dict[str, Any]:
    found = [line for line in lines if line.get("run") == run and ("end" in line or "error" in line)]
    assert len(found) == 1, lines
    assert "end" in found[0], found[0]
    end: dict[str, Any] = found[0]["end"]
    return end


def _weather_run(
    serve: Serve, client: Client, thread: str, run: str
) -> tuple[AguiAgent[Any, Any, Any], Lines]:
    """The weather agent, and the official client's lines for one run of it asked about Paris."""
    agent = weather_agent()
    served = serve([agent])
    plan = {
        "url": served.url(f"/agui/{agent.name}"),
        "threadId": thread,
        "messages": [_user("What is the weather in Paris?")],
        "runs": [{"runId": run}],
    }
    return agent, client(plan)


def test_a_run_streams_steps_tool_calls_text_and_state(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    _, lines = _weather_run(serve, client, "thread-1", "run-1")
    types = _types(lines)
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED", types
    assert types[1:4] == ["MESSAGES_SNAPSHOT", "STATE_SNAPSHOT", "STEP_STARTED"]
    assert types.count("STEP_STARTED") == types.count("STEP_FINISHED")
    for kind in ("TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "STATE_DELTA"):
        assert kind in types, (kind, types)
    assert types.index("TOOL_CALL_END") < types.index("TOOL_CALL_RESULT") < types.index("TEXT_MESSAGE_START")
    events = [line["event"] for line in lines if "event" in line]
    steps = [e["stepName"] for e in events if e["type"] == "STEP_STARTED"]
    assert steps[:2] == ["Idle", "Planning"] and steps[-1] == "Done", steps
    args = "".join(e["delta"] for e in events if e["type"] == "TOOL_CALL_ARGS")
    assert json.loads(args) == {"city": "Paris"}
    result = next(e for e in events if e["type"] == "TOOL_CALL_RESULT")
    assert result["toolCallId"] == "call_1" and "sunny in Paris" in result["content"]
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == ANSWER
    end = _end(lines)
    assert end["result"] == ANSWER
    assert end["state"]["final_answer"] == ANSWER and end["state"]["task"] == "What is the weather in Paris?"
    assistant = [m for m in end["messages"] if m["role"] == "assistant"]
    assert any(m.get("content") == ANSWER for m in assistant)
    assert store.get("run-1").unwrap().status.value == "finished"


def test_the_client_follows_the_state_step_by_step_and_ends_with_the_memorys_public_fields(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    agent, lines = _weather_run(serve, client, "thread-s", "run-s")
    types = _types(lines)
    deltas = [index for index, kind in enumerate(types) if kind == "STATE_DELTA"]
    # sent while the run works: each right after the step that made it started
    assert deltas and all(types[index - 1] == "STEP_STARTED" for index in deltas), types
    assert any(types.index("TOOL_CALL_RESULT") < i < types.index("TEXT_MESSAGE_START") for i in deltas), types
    events = [line["event"] for line in lines if "event" in line]
    patches = [e["delta"] for e in events if e["type"] == "STATE_DELTA"]
    assert len(patches) >= 4 and all(patches), (
        patches
    )  # the steps that changed a public field, never an empty one
    paths = [[op["path"] for op in patch] for patch in patches]
    history = next(i for i, changed in enumerate(paths) if "/history/0" in changed)
    answered = next(i for i, changed in enumerate(paths) if "/final_answer" in changed)
    assert history < answered == len(patches) - 1, paths
    stored = replay_stored(store, agent.durable.machine, "run-s").unwrap()
    assert _end(lines)["state"] == json.loads(
        json.dumps(public_state(stored.memory))
    )  # the client applied them
    assert _end(lines)["state"]["history"][0]["observation"] == "SUCCESS: sunny in Paris"


def test_an_approval_ends_the_run_as_an_interrupt_and_the_answer_resumes_the_stored_run(
    serve: Serve, client: Client, store: SqliteStore
) -> None:
    agent = email_agent()
    served = serve([agent])
    SENT.clear()
    plan = {
        "url": served.url(f"/agui/{agent.name}"),
        "threadId": "thread-2",
        "messages": [_user("Tell the team the release moves to Friday.")],
        "runs": [
            {"runId": "ask"},
            {"runId": "answer", "answer": {"status": "resolved", "payload": {"approved": True}}},
        ],
    }
    lines = client(plan)
    first = _end(lines, 0)
    assert [i["id"] for i in first["interrupts"]] == ["ask#1"]
    interrupt = first["interrupts"][0]
    assert interrupt["reason"] == "tool_approval" and interrupt["toolCallId"] == "call_mail"
    second = _end(lines, 1)
    types = _types(lines, 1)
    assert types[0] == "RUN_STARTED" and types[-1] == "RUN_FINISHED"
    assert "TOOL_CALL_RESULT" in types
    assert "TOOL_CALL_START" not in types  # announced by the run that asked for approval
    assert second["result"] == "The team has been told about Friday."
    assert second["interrupts"] == []
    assert SENT == ["team@example.com"]
    assert store.get("ask").unwrap().status.value == "finished"
