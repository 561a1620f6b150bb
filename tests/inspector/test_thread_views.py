"""The thread page's data: turns as a chat, tool calls folded under their answer, each run's threads."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.agents.react import agent_failure
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.durable.operations.threads import fork_thread
from agentsm_fn.inspector import run_threads, run_view, thread_view, turn_chat, turn_view
from agentsm_fn.llm import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from agentsm_fn.llm.conversation import ConversationMessage
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.server import create_app
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.inspector.threads import SAID, desk, support_thread


def rows(value: JsonValue) -> list[dict[str, JsonValue]]:
    """A view's list of objects (turns, steps), typed as such."""
    assert isinstance(value, list)
    return [row(item) for item in value]


def row(value: JsonValue) -> dict[str, JsonValue]:
    assert isinstance(value, dict)
    return value


def test_a_thread_is_its_turns_with_the_tool_calls_folded_under_their_answers(store: SqliteStore) -> None:
    agent = desk()
    runs = support_thread(store, agent)
    view = thread_view(store, agent, "chat-1").unwrap()
    turns = rows(view["turns"])
    assert [(t["turn"], t["run_id"], t["status"], t["message"]) for t in turns] == [
        (0, runs[0], "finished", SAID[0]),
        (1, runs[1], "finished", SAID[1]),
        (2, runs[2], "waiting", SAID[2]),
    ]
    first, second, third = turns
    assert first == {**first, "answer": "Nice to meet you, Ada! How can I help you today?", "steps": []}
    assert second == {
        **second,
        "answer": "Order A-17 ships tomorrow, Ada.",
        "steps": [
            {
                "call": "call_status",
                "name": "order_status",
                "arguments": {"order": "A-17"},
                "result": "SUCCESS: ships tomorrow",
                "error": False,
            }
        ],
    }
    assert third == {
        **third,
        "shown": False,
        "pending": {
            "run_id": runs[2],
            "path": [],
            "seq": 1,
            "effect": "AskHuman refund",
            "key": f"{runs[2]}:1",
            "waiting": True,
        },
    }
    assert view["thread"] == {
        **row(view["thread"]),
        "machine": agent.name,
        "turns": 3,
        "parent": None,
    }
    assert view["problem"] is None


def test_turns_a_compression_took_out_are_read_one_at_a_time(store: SqliteStore) -> None:
    agent = desk(context=60)  # so small that every turn compresses the ones before it
    for message in ("My name is Ada.", "Where is order A-17?", "Thanks!"):
        agent.chat(store, "short", message).unwrap()
    turns = rows(thread_view(store, agent, "short").unwrap()["turns"])
    assert [(t["turn"], t["shown"]) for t in turns] == [(0, False), (1, False), (2, True)]
    assert turns[0]["answer"] is None
    again = turn_view(store, agent, "short", 1).unwrap()
    assert again["answer"] == "Order A-17 ships tomorrow, Ada."
    assert [step["name"] for step in rows(again["steps"])] == ["order_status"]


def test_a_fork_shares_its_earlier_turns_runs_and_each_run_names_its_threads(store: SqliteStore) -> None:
    agent = desk()
    runs = [agent.chat(store, "chat-1", m).unwrap().run_id for m in SAID[:2]]
    forked = fork_thread(agent, store, "chat-1", 1, "Where is order B-42?", "chat-2").unwrap()
    view = thread_view(store, agent, "chat-2").unwrap()
    assert row(view["thread"])["parent"] == "chat-1" and row(view["thread"])["parent_turn"] == 1
    assert [t["answer"] for t in rows(view["turns"])][1] == "Order B-42 was delivered yesterday, Ada."
    found = run_threads(store, [*runs, forked.run_id, "no-such-run"]).unwrap()
    assert found == {
        runs[0]: [{"thread_id": "chat-1", "turn": 0}, {"thread_id": "chat-2", "turn": 0}],
        runs[1]: [{"thread_id": "chat-1", "turn": 1}],
        forked.run_id: [{"thread_id": "chat-2", "turn": 1}],
    }


def test_a_failed_turn_says_why_and_its_run_names_its_thread(store: SqliteStore) -> None:
    built = AgentBuilder.new("").llm(ScriptedLlm([])).build().unwrap()  # no reply: the turn's LLM call fails
    machine, memory, shell = built.machine, built.memory, built.shell
    agent = Durable(name="app:MUTE", machine=machine, shell=shell, template=memory, failure=agent_failure)
    agent.chat(store, "mute", "Hello?")
    (turn,) = rows(thread_view(store, agent, "mute").unwrap()["turns"])
    assert turn["status"] == "failed" and "no more programmed responses" in str(turn["failure"])
    record = store.get(str(turn["run_id"])).unwrap()
    assert run_view(store, agent, record)["threads"] == [{"thread_id": "mute", "turn": 0}]


@st.composite
def turns(draw: st.DrawFn) -> tuple[list[ConversationMessage], list[str], str | None]:
    """A turn: rounds of tool calls, each answered, then perhaps an answer; the calls' names, the answer."""
    messages: list[ConversationMessage] = [UserMessage("go")]
    names: list[str] = []
    for round_number in range(draw(st.integers(0, 3))):
        calls = tuple(
            ToolCall(f"c{round_number}-{k}", f"tool{round_number}{k}", {"k": k})
            for k in range(draw(st.integers(1, 3)))
        )
        said = draw(st.sampled_from(["", "Looking."]))
        messages.append(AssistantMessage(said, tool_calls=calls))
        messages.extend(ToolResultMessage(tool_call_id=c.id, name=c.name, content=f"r{c.id}") for c in calls)
        names.extend(c.name for c in calls)
    answer = draw(st.none() | st.text(min_size=1, max_size=20))
    if answer is not None:
        messages.append(AssistantMessage(answer))
    return messages, names, answer


@given(turns())
def test_every_tool_call_is_folded_once_with_its_own_result(
    turn: tuple[list[ConversationMessage], list[str], str | None],
) -> None:
    messages, names, answer = turn
    chat = turn_chat(messages, redact=lambda text: text)
    calls = [step for step in rows(chat["steps"]) if "call" in step]
    assert [c["name"] for c in calls] == names
    assert all(c["result"] == f"r{c['call']}" for c in calls)
    assert chat["answer"] == answer


@pytest.fixture
def served(store: SqliteStore) -> Iterator[tuple[TestClient, list[str]]]:
    agent = desk()
    runs = support_thread(store, agent)
    with TestClient(create_app(store, [agent]), base_url="http://127.0.0.1") as client:
        yield client, runs


def test_the_routes_serve_a_thread_a_turn_and_which_threads_runs_are_of(
    served: tuple[TestClient, list[str]],
) -> None:
    client, runs = served
    shown = client.get("/inspector/api/threads/chat-1").json()
    assert [t["status"] for t in shown["turns"]] == ["finished", "finished", "waiting"]
    assert (
        client.get("/inspector/api/threads/chat-1/turns/1").json()["answer"]
        == "Order A-17 ships tomorrow, Ada."
    )
    missing = client.get("/inspector/api/threads/nobody")
    assert missing.status_code == 404 and missing.json()["error"]["kind"] == "thread_not_found"
    assert client.get("/inspector/api/threads/chat-1/turns/9").status_code == 404
    found = client.get("/inspector/api/turns-of", params=[("run", runs[2]), ("run", "other")]).json()
    assert found == {runs[2]: [{"thread_id": "chat-1", "turn": 2}]}
    assert client.get("/inspector/api/turns-of", params=[("run", "r")] * 101).status_code == 422
