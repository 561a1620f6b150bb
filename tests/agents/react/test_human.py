"""Human in the loop: approval callbacks, suspension, JSON round trip, resume in another process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings

from agentsm_fn.agents.react import (
    AgentMemory,
    Approved,
    AskHuman,
    Completed,
    Event,
    HumanApprovalRequest,
    MemoryError,
    Modified,
    Rejected,
    State,
    Suspended,
)
from agentsm_fn.agents.react.codec import dumps, loads
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from tests.agents.react import approval_agent
from tests.agents.react.approval_agent import final_reply, first_reply, make_agent
from tests.agents.react.strategies import memories

ROOT = Path(__file__).resolve().parents[3]


def _suspend() -> Suspended:
    outcome = make_agent(first_reply()).run().unwrap()
    assert isinstance(outcome, Suspended)
    return outcome


def test_run_suspends_at_waiting_for_human_with_the_request() -> None:
    suspended = _suspend()
    assert suspended.state is State.WaitingForHuman
    assert suspended.request is not None
    assert suspended.request.tool_call.name == "delete_file"
    assert suspended.request.reason == "tool 'delete_file' is marked needs_approval"
    assert suspended.trace[-1].event == "request AskHuman"


@pytest.mark.parametrize(
    ("decision", "observation", "deleted"),
    [
        (Approved(), "SUCCESS: deleted /tmp/report.txt", ["/tmp/report.txt"]),
        (
            Modified({"path": "/tmp/report-old.txt"}),
            "SUCCESS: deleted /tmp/report-old.txt",
            ["/tmp/report-old.txt"],
        ),
        (Rejected("keep it"), "ERROR: HumanRejected: the user rejected this call: keep it", []),
    ],
)
def test_resume_after_a_json_round_trip(
    decision: ApprovalDecision, observation: str, deleted: list[str]
) -> None:
    approval_agent.DELETED.clear()
    text = _suspend().to_json()
    restored = Suspended.from_json(text).unwrap()
    assert restored == Suspended.from_json(text).unwrap()
    done = make_agent(final_reply()).resume(restored, decision).unwrap()
    assert isinstance(done, Completed)
    assert done.state is State.Done
    assert done.memory.history[-1].observation == observation
    assert deleted == approval_agent.DELETED
    events = [e.event for e in done.trace if e.target]
    assert "HumanApprovalRequired" in events


def test_resume_in_another_process(tmp_path: Path) -> None:
    stored = tmp_path / "suspended.json"
    stored.write_text(_suspend().to_json(), encoding="utf-8")
    completed = subprocess.run(
        [sys.executable, "-m", "tests.agents.react.approval_agent", str(stored), "modify"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "The old report has been handled as you decided.",
        "SUCCESS: deleted /tmp/report-old.txt",
        "deleted: /tmp/report-old.txt",
    ]


def test_callback_approver_decides_without_suspending() -> None:
    seen: list[HumanApprovalRequest] = []

    def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        seen.append(request)
        return Rejected("no deletions today")

    agent = attrs.evolve(make_agent(first_reply(), final_reply()), approver=approver)
    done = agent.run().unwrap()
    assert isinstance(done, Completed)
    assert [r.tool_call.name for r in seen] == ["delete_file"]
    assert done.memory.history[-1].success is False


def test_raising_approver_rejects_the_call() -> None:
    def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        raise RuntimeError("ui crashed")

    agent = attrs.evolve(make_agent(first_reply(), final_reply()), approver=approver)
    done = agent.run().unwrap()
    assert isinstance(done, Completed)
    assert "the approval callback raised RuntimeError: ui crashed" in done.memory.history[-1].observation


async def test_async_approver_and_async_resume() -> None:
    async def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        return Approved()

    approval_agent.DELETED.clear()
    agent = attrs.evolve(make_agent(first_reply(), final_reply()), async_approver=approver)
    done = (await agent.arun()).unwrap()
    assert isinstance(done, Completed)
    assert approval_agent.DELETED == ["/tmp/report.txt"]
    suspended = (await make_agent(first_reply()).arun()).unwrap()
    assert isinstance(suspended, Suspended)
    resumed = (await make_agent(final_reply()).aresume(suspended, Rejected())).unwrap()
    assert isinstance(resumed, Completed)
    assert resumed.memory.history[-1].observation.endswith("no reason given")


def test_resume_with_a_wrong_outcome_is_a_typed_failure() -> None:
    suspended = _suspend()
    error = make_agent(final_reply()).resume(suspended, "yes please").failure()  # type: ignore[arg-type]  # the point
    assert "rejected by AskHuman" in error.describe()


def test_from_json_rejects_garbage_and_other_values() -> None:
    assert isinstance(Suspended.from_json("{").failure(), MemoryError)
    assert isinstance(Suspended.from_json(dumps(AgentMemory.new("t"))).failure(), MemoryError)
    assert isinstance(Suspended.from_json('{"$attrs": "os.system", "fields": {}}').failure(), MemoryError)
    assert isinstance(Suspended.from_json('{"$what": 1}').failure(), MemoryError)


def test_ask_human_effect_round_trips() -> None:
    suspended = _suspend()
    pending = suspended.snapshot.pending
    assert isinstance(pending, AskHuman)
    assert loads(dumps(pending)).unwrap() == pending


@settings(max_examples=60, deadline=None)
@given(memories())
def test_any_memory_round_trips_through_json(memory: AgentMemory) -> None:
    assert loads(dumps(memory)).unwrap() == memory


def test_decision_event_names() -> None:
    assert {Event.HumanApproved, Event.HumanRejected, Event.HumanModified} <= set(Event)
