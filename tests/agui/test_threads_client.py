"""A conversation through the official AG-UI client (@ag-ui/client) and a real ``agentsm-runs serve --agui``.

The support chat example (``support_chat:SUPPORT``) asks aimock (a streaming OpenAI-compatible
peer on loopback) through ``SUPPORT_CHAT_LLM_URL``. Three turns in one thread, then the user edits
the second message, which forks the thread there, and the conversation goes on in the fork.
aimock's recorded requests show each turn's LLM request holding the earlier turns of its thread,
and the edited turn's holding only the turns before the edit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from agentsm_fn.durable import SqliteStore
from tests.agui.conftest import Lines
from tests.providers.conftest import Aimock, _aimock_cli, aimock_server
from tests.server.live import examples_env, serving_command

__all__ = ["aimock_server"]  # the session fixture, shared with the provider tests

AGENT = "support_chat:SUPPORT"
SYSTEM = ("system", "You are the support desk of a shop. Be brief.")
HELLO = [("user", "Hello, this is Grace."), ("assistant", "Hello Grace! How can I help you today?")]
A17 = [
    ("user", "Where is my order A-17?"),
    ("assistant", "order_status"),
    ("tool", "SUCCESS: ships tomorrow"),
    ("assistant", "Order A-17 ships tomorrow, Grace."),
]
B42 = [
    ("user", "Where is my order B-42?"),
    ("assistant", "order_status"),
    ("tool", "SUCCESS: was delivered yesterday"),
    ("assistant", "Order B-42 was delivered yesterday, Grace."),
]
WHO = ("user", "Do you remember who I am?")


@pytest.fixture
def aimock(aimock_server: Aimock) -> Iterator[Aimock]:
    aimock_server.reset()
    yield aimock_server


@pytest.fixture(autouse=True)
def _aimock_is_there() -> None:
    if _aimock_cli() is None and os.environ.get("CI") == "true":
        pytest.fail("aimock is missing (run `bash scripts/aimock.sh`) (CI=true: never skipped)")


def _sent(entry: dict[str, object]) -> list[tuple[str, str]]:
    """A recorded request's messages as (role, what they say): content, or the tools called."""
    body = entry.get("body")
    assert isinstance(body, dict)
    shown: list[tuple[str, str]] = []
    for message in body["messages"]:
        calls = message.get("tool_calls") or []
        said = message.get("content") or ",".join(call["function"]["name"] for call in calls)
        shown.append((str(message["role"]), str(said)))
    return shown


def _run(lines: Lines, index: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One run's events and where it left the client (failing on the client's error)."""
    events = [line["event"] for line in lines if line.get("run") == index and "event" in line]
    (end,) = [line for line in lines if line.get("run") == index and ("end" in line or "error" in line)]
    assert "end" in end, end
    return events, end["end"]


def _said(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The client's messages as (role, what they say), as the recorded requests are shown."""
    shown = []
    for message in messages:
        calls = message.get("toolCalls") or []
        said = message.get("content") or ",".join(call["function"]["name"] for call in calls)
        shown.append((message["role"], said))
    return shown


def test_three_turns_then_an_edit_that_forks_through_the_official_client(
    tmp_path: Path, client: Callable[[Mapping[str, object]], Lines], aimock: Aimock
) -> None:
    SqliteStore.open(tmp_path / "runs.db").unwrap().close()
    env = {**examples_env(), "SUPPORT_CHAT_LLM_URL": f"{aimock.base}/v1"}
    with serving_command(tmp_path / "runs.db", "--agui", AGENT, env=env) as url:
        runs: list[dict[str, object]] = [
            {"runId": "turn-0", "say": HELLO[0][1]},
            {"runId": "turn-1", "say": A17[0][1]},
            {"runId": "turn-2", "say": WHO[1]},
            {"runId": "edited-1", "edit": {"user": 1, "content": B42[0][1]}},
            {"runId": "fork-2", "say": WHO[1]},
        ]
        plan = {"url": f"{url}/agui/{AGENT}", "threadId": "support-1", "messages": [], "runs": runs}
        lines = client(plan)
        assert [line for line in lines if "error" in line or "fatal" in line] == [], lines
        with httpx.Client(base_url=url, timeout=30) as http:
            original = http.get("/threads/support-1/turns").json()["turns"]
            (fork,) = http.get("/threads", params={"parent": "support-1"}).json()["threads"]
            forked = http.get(f"/threads/{fork['thread_id']}/turns").json()["turns"]
            edited = http.get("/runs/edited-1").json()

    # the store holds the three turns, and the fork: turn 0 shared, the edited turn 1, then turn 2
    assert [(t["turn"], t["run_id"], t["status"]) for t in original] == [
        (0, "turn-0", "finished"),
        (1, "turn-1", "finished"),
        (2, "turn-2", "finished"),
    ]
    assert fork["thread_id"].startswith("support-1~") and fork["parent_turn"] == 1
    assert [(t["turn"], t["run_id"], t["message"]) for t in forked] == [
        (0, "turn-0", HELLO[0][1]),
        (1, "edited-1", B42[0][1]),
        (2, "fork-2", WHO[1]),
    ]
    assert edited["parent"] == "turn-1" and edited["status"] == "finished"

    # each run starts with the thread's conversation from the store, then streams the turn
    for index, (thread, turn) in enumerate(
        [("support-1", 0), ("support-1", 1), ("support-1", 2), (fork["thread_id"], 1), (fork["thread_id"], 2)]
    ):
        events, _ = _run(lines, index)
        assert [e["type"] for e in events[:3]] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "STATE_SNAPSHOT"]
        assert events[0]["metadata"]["agentsm_fn"] == {
            "run": runs[index]["runId"],
            "thread": thread,
            "turn": turn,
        }
    snapshots = [_said(_run(lines, index)[0][1]["messages"]) for index in range(5)]
    assert snapshots[0] == [HELLO[0]]
    assert snapshots[2] == [*HELLO, *A17, WHO]
    assert snapshots[3] == [*HELLO, B42[0]]  # the edited turn: the turns before it, and the edit
    assert snapshots[4] == [*HELLO, *B42, WHO]
    _, last = _run(lines, 4)
    assert _said(last["messages"])[-1] == ("assistant", "You are Grace, as you said when we started.")

    # aimock's recorded requests: each turn's LLM request holds the earlier turns of its thread, in order
    requests = [_sent(entry) for entry in aimock.journal() if entry.get("path") == "/v1/chat/completions"]
    assert (
        requests
        == [
            [SYSTEM, HELLO[0]],
            [SYSTEM, *HELLO, A17[0]],
            [SYSTEM, *HELLO, *A17[:3]],
            [SYSTEM, *HELLO, *A17, WHO],
            [SYSTEM, *HELLO, B42[0]],  # the fork's turn 1: turn 0 only, then the edited message
            [SYSTEM, *HELLO, *B42[:3]],
            [SYSTEM, *HELLO, *B42, WHO],
        ]
    )
