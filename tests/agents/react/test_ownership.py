"""The ownership rules of 001 as invariants, checked on every transition of generated runs.

Runs are driven step by step through the engine with outcomes drawn by
Hypothesis for each effect the machine requests (LLM replies and failures, tool
results, human decisions), from generated configurations.
"""

from __future__ import annotations

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Success

from agentsm_fn.agents.react import (
    REACT_MACHINE,
    SUMMARY_TOOL,
    AgentConfig,
    AgentMemory,
    AskHuman,
    ReactToolResult,
    RunTool,
    RunToolBatch,
    State,
    ToolBatchResult,
)
from agentsm_fn.core import Snapshot, Status, begin, resume, step
from agentsm_fn.llm import LlmCall, LlmFailure, LlmFailureKind, LlmReply, ToolCall, Usage
from tests.agents.react.helpers import CALCULATOR, DELETE, SEARCH
from tests.agents.react.strategies import configs, decisions

Snap = Snapshot[State, AgentMemory]


def _plan_reply(data: st.DataObject) -> object:
    kind = data.draw(st.sampled_from(["fail", "short", "answer", "calls"]))
    usage = Usage(input_tokens=data.draw(st.integers(0, 50)), output_tokens=data.draw(st.integers(0, 50)))
    if kind == "fail":
        return LlmFailure(kind=LlmFailureKind.CONNECTION, message="down")
    if kind == "short":
        return LlmReply(content="ok", usage=usage)
    if kind == "answer":
        return LlmReply(content="A sufficiently long final answer.", usage=usage)
    names = data.draw(
        st.lists(st.sampled_from(["search", "calculator", "delete_file", "nope"]), min_size=1, max_size=3)
    )
    calls = tuple(
        ToolCall(f"c{i}", n, {"query": "q"} if n == "search" else {"expression": "1"})
        for i, n in enumerate(names)
    )
    return LlmReply(tool_calls=calls, confidence=data.draw(st.floats(0, 1)), usage=usage)


def _outcome(data: st.DataObject, effect: object) -> object:
    if isinstance(effect, LlmCall) and effect.purpose == "plan":
        return _plan_reply(data)
    if isinstance(effect, LlmCall):
        text = data.draw(st.sampled_from(["", "summary of the work"]))
        return data.draw(
            st.sampled_from([LlmReply(content=text), LlmFailure(kind=LlmFailureKind.TIMEOUT, message="")])
        )
    if isinstance(effect, RunTool):
        ok = data.draw(st.booleans())
        return ReactToolResult(
            call_id=effect.call.id, name=effect.call.name, ok=ok, output="out", error_type="E"
        )
    if isinstance(effect, RunToolBatch):
        return ToolBatchResult(
            tuple(
                ReactToolResult(call_id=r.call.id, name=r.call.name, ok=data.draw(st.booleans()), output="o")
                for r in effect.runs
            )
        )
    assert isinstance(effect, AskHuman)
    return data.draw(decisions)


def _check(before: Snap, after: Snap) -> None:
    """Every ownership rule for one step from ``before`` to ``after``."""
    state, old, new = before.state, before.memory, after.memory
    # step: only Planning changes it, by +1
    if new.step != old.step:
        assert state is State.Planning and new.step == old.step + 1
    # current_tool_call: set by Planning, cleared by Observing, arguments replaced only on HumanModified
    if old.current_tool_call is None and new.current_tool_call is not None:
        assert state is State.Planning
    if old.current_tool_call is not None and new.current_tool_call is None:
        assert state is State.Observing
    if (
        None not in (old.current_tool_call, new.current_tool_call)
        and old.current_tool_call != new.current_tool_call
    ):
        assert state is State.WaitingForHuman
        assert old.current_tool_call is not None and new.current_tool_call is not None
        assert (old.current_tool_call.id, old.current_tool_call.name) == (
            new.current_tool_call.id,
            new.current_tool_call.name,
        )
    # last_observation: set by Acting, cleared by Observing
    if new.last_observation != old.last_observation:
        assert (state, new.last_observation is None) in {(State.Acting, False), (State.Observing, True)}
    # history: append-only in Observing; replaced by one summary only in Reflecting
    if new.history != old.history:
        if state is State.Reflecting:
            assert len(new.history) == 1 and new.history[0].tool.name == SUMMARY_TOOL
        else:
            assert state is State.Observing
            assert list(new.history[: len(old.history)]) == list(old.history)
            assert len(new.history) > len(old.history)
    # final_answer: Planning only, never cleared; error: never cleared
    if new.final_answer != old.final_answer:
        assert state is State.Planning and old.final_answer is None
    if old.error is not None:
        assert new.error == old.error
    # pending approval: set by Planning, decided by WaitingForHuman, cleared by Observing
    if new.pending_approval != old.pending_approval:
        assert state in {State.Planning, State.WaitingForHuman, State.Observing}
    # refused_tools: set by Planning on ToolBlacklisted only, cleared when the next plan step starts
    if new.refused_tools != old.refused_tools:
        assert state is State.Planning
    if new.refused_tools:
        assert after.trace[-1].event == "ToolBlacklisted"
        assert set(new.refused_tools) <= new.blacklisted_tools
    # trace: append-only
    assert list(after.trace.rows[: len(before.trace)]) == list(before.trace.rows)
    assert len(after.trace) > len(before.trace)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs, data=st.data())
def test_ownership_rules_hold_on_every_transition(config: AgentConfig, data: st.DataObject) -> None:
    memory = AgentMemory.new("task").with_tools([SEARCH, CALCULATOR, DELETE]).with_config(config)
    memory = attrs.evolve(memory, blacklisted_tools=data.draw(st.frozensets(st.sampled_from(["calculator"]))))
    snap: Snap = begin(REACT_MACHINE, memory)
    clock = 0.0
    for _ in range(REACT_MACHINE.cap_for(memory) * 2):
        clock += 1.0
        if snap.status is Status.FINISHED:
            break
        if snap.status is Status.AWAITING:
            result = resume(REACT_MACHINE, snap, _outcome(data, snap.pending), clock)
        else:
            result = step(REACT_MACHINE, snap, clock)
        assert isinstance(result, Success), result
        after = result.unwrap()
        _check(snap, after)
        snap = after
    assert snap.status is Status.FINISHED
    assert snap.state in {State.Done, State.Error}
    assert snap.steps <= REACT_MACHINE.cap_for(memory)
    if snap.state is State.Error:
        assert snap.memory.error is not None
    else:
        assert snap.memory.final_answer is not None


def test_done_and_error_never_change_memory() -> None:
    for terminal in (State.Done, State.Error):
        snap: Snap = Snapshot(state=terminal, memory=AgentMemory.new("t"), status=Status.FINISHED)
        assert terminal not in REACT_MACHINE.handlers
        failed = step(REACT_MACHINE, snap, 0.0).failure()
        assert failed.snapshot == snap
