"""Human in the loop: approval callbacks, suspension, JSON round trip, resume in another process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentsm_fn.agents.react import (
    AgentMemory,
    Approved,
    AskHuman,
    Event,
    HumanApprovalRequest,
    MemoryError,
    Modified,
    ReactCompleted,
    Rejected,
    State,
    Suspended,
)
from agentsm_fn.agents.react.codec import dumps_snapshot, loads_snapshot
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
    assert isinstance(done, ReactCompleted)
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
    assert isinstance(done, ReactCompleted)
    assert [r.tool_call.name for r in seen] == ["delete_file"]
    assert done.memory.history[-1].success is False


def test_raising_approver_rejects_the_call() -> None:
    def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        raise RuntimeError("ui crashed")

    agent = attrs.evolve(make_agent(first_reply(), final_reply()), approver=approver)
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert "the approval callback raised RuntimeError: ui crashed" in done.memory.history[-1].observation


async def test_async_approver_and_async_resume() -> None:
    async def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        return Approved()

    approval_agent.DELETED.clear()
    agent = attrs.evolve(make_agent(first_reply(), final_reply()), async_approver=approver)
    done = (await agent.arun()).unwrap()
    assert isinstance(done, ReactCompleted)
    assert approval_agent.DELETED == ["/tmp/report.txt"]
    suspended = (await make_agent(first_reply()).arun()).unwrap()
    assert isinstance(suspended, Suspended)
    resumed = (await make_agent(final_reply()).aresume(suspended, Rejected())).unwrap()
    assert isinstance(resumed, ReactCompleted)
    assert resumed.memory.history[-1].observation.endswith("no reason given")


def test_resume_with_a_wrong_outcome_rejects_the_call_and_says_why() -> None:
    # An outcome AskHuman does not accept is a REJECTED effect failure; AskHuman turns any
    # failure into a rejection, so the tool never runs without an approval.
    approval_agent.DELETED.clear()
    suspended = _suspend()
    done = make_agent(final_reply()).resume(suspended, "yes please").unwrap()  # type: ignore[arg-type]  # the point
    assert isinstance(done, ReactCompleted)
    assert approval_agent.DELETED == []
    observation = done.memory.history[-1].observation
    assert "no approval: outcome rejected: an outcome of type str" in observation


def test_from_json_rejects_garbage_and_other_values() -> None:
    assert isinstance(Suspended.from_json("{").failure(), MemoryError)
    assert isinstance(Suspended.from_json(dumps_snapshot(AgentMemory.new("t"))).failure(), MemoryError)
    assert isinstance(Suspended.from_json('{"$attrs": "os.system", "fields": {}}').failure(), MemoryError)
    assert isinstance(Suspended.from_json('{"$what": 1}').failure(), MemoryError)


NOT_A_RUN = "not a stored agent run: "


def _why_not(text: str) -> str:
    """The reason ``from_json`` gives for ``text``, checked to be the plain typed error."""
    error = Suspended.from_json(text).failure()
    assert isinstance(error, MemoryError)
    assert error.message.startswith(NOT_A_RUN), error.message
    assert "codec" not in error.message
    return error.message.removeprefix(NOT_A_RUN)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"a": 1}', "unknown tag 'a'"),
        ("not json at all", "not JSON"),
        ("", "not JSON"),
        ("[" * 100_000, "not JSON"),
        ("[1, 2]", "unexpected JSON array"),
        ('{"a": 1, "b": 2, "c": 3}', "unexpected JSON object with 3 keys"),
        ('{"$attrs": "Snapshot", "fields": {}}', "Snapshot is missing field 'state'"),
        ('{"$attrs": "Usage", "fields": {"bogus": 1}}', "Usage has no field 'bogus'"),
        ('{"$frozenset": [{"$dict": []}]}', "malformed value"),
        (dumps_snapshot(AgentMemory.new("t")), "it is a stored AgentMemory, not a paused run"),
    ],
)
def test_from_json_says_plainly_the_text_is_not_a_stored_run_and_why(text: str, why: str) -> None:
    assert why in _why_not(text)


def test_from_json_says_a_finished_run_is_not_paused() -> None:
    done = make_agent(final_reply()).resume(_suspend(), Approved()).unwrap()
    assert isinstance(done, ReactCompleted)
    assert _why_not(dumps_snapshot(done.snapshot)) == "the run is FINISHED in Done, not paused"


_NAMES = st.sampled_from(
    ["Snapshot", "AgentMemory", "State", "Status", "ToolCall", "Usage", "Done", "AWAITING"]
)
_KEYS = st.sampled_from(
    [
        "$tuple",
        "$pvector",
        "$frozenset",
        "$pmap",
        "$dict",
        "$enum",
        "$attrs",
        "name",
        "fields",
        "state",
        "status",
        "memory",
        "task",
        "pending",
    ]
) | st.text(max_size=3)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=4) | _NAMES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(json_values)
@example({"$frozenset": [{"$dict": []}]})
@example({"$pmap": [[{"$dict": []}, 1]]})
@example({"$attrs": "Snapshot", "fields": {"state": 1, "memory": 2, "status": 3}})
def test_any_json_is_refused_as_a_typed_error_never_an_exception(value: object) -> None:
    _why_not(json.dumps(value))


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_is_refused_as_a_typed_error_never_an_exception(text: str) -> None:
    _why_not(text)


def _fields(stored: dict[str, object], name: str) -> dict[str, object]:
    fields = stored["fields"]
    assert isinstance(fields, dict)
    value = fields[name]
    assert isinstance(value, dict)
    inner = value["fields"]
    assert isinstance(inner, dict)
    return inner


def test_a_run_stored_before_refused_tools_existed_still_loads() -> None:
    paused = _suspend()
    stored = json.loads(paused.to_json())
    memory_fields = _fields(stored, "memory")
    assert memory_fields.pop("refused_tools") == {"$tuple": []}
    restored = Suspended.from_json(json.dumps(stored)).unwrap()
    assert restored == paused
    assert restored.memory.refused_tools == ()


def test_refused_tools_round_trip_with_a_stored_run() -> None:
    paused = _suspend()
    memory = paused.memory.evolve(refused_tools=("weather", "rm"))
    refused = Suspended(attrs.evolve(paused.snapshot, memory=memory))
    assert Suspended.from_json(refused.to_json()).unwrap().memory.refused_tools == ("weather", "rm")


def test_ask_human_effect_round_trips() -> None:
    suspended = _suspend()
    pending = suspended.snapshot.pending
    assert isinstance(pending, AskHuman)
    assert loads_snapshot(dumps_snapshot(pending)).unwrap() == pending


@settings(max_examples=60, deadline=None)
@given(memories())
def test_any_memory_round_trips_through_json(memory: AgentMemory) -> None:
    assert loads_snapshot(dumps_snapshot(memory)).unwrap() == memory


def test_decision_event_names() -> None:
    assert {Event.HumanApproved, Event.HumanRejected, Event.HumanModified} <= set(Event)
