"""The built-in agents stream the same kind of events as any machine, their own result last."""

from __future__ import annotations

from agentsm_fn import arun
from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
from agentsm_fn.llm import LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.shell import StepClock, redact_credentials
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.stream_history import history_of
from agentsm_fn.stream import EffectCompleted, EffectRequested, Finished, OutcomeKind, RunStarted
from tests.durable.agents import add, agent, planner
from tests.stream.helpers import collect, history, positions, timeless


async def test_the_react_agent_streams_its_llm_calls_and_tools_and_ends_with_what_arun_returns() -> None:
    events = await collect(agent().astream())
    expected = await agent().arun()
    started, finished = events[0], events[-1]
    assert isinstance(started, RunStarted) and started.machine == "react"
    assert isinstance(finished, Finished) and finished.result == expected
    effects = {event.effect for event in events if isinstance(event, EffectRequested)}
    assert "LlmCall" in effects and len(effects) >= 2
    snapshot = expected.unwrap().snapshot
    assert history(events) == [timeless(e) for e in history_of(started, snapshot, redact_credentials)]


async def test_the_plan_and_execute_agent_streams_the_same_way() -> None:
    events = await collect(planner().astream("Add some numbers"))
    expected = await planner().arun("Add some numbers")
    started, finished = events[0], events[-1]
    assert isinstance(started, RunStarted) and started.steps == 0 and not started.resumed
    assert isinstance(finished, Finished) and finished.result == expected
    assert positions(events) == list(range(len(positions(events))))
    fsm = planner()
    snapshot = (await arun(PLAN_EXECUTE_MACHINE, fsm.start("Add some numbers"), fsm.shell())).unwrap()
    assert history(events) == [timeless(e) for e in history_of(started, snapshot, redact_credentials)]


class _TwoAtOnce:
    """Asks for two additions in one reply, then answers."""

    def complete(self, request: LlmRequest) -> LlmReply:
        if any(isinstance(m, ToolResultMessage) for m in request.messages):
            return LlmReply(content="Both sums are done.")
        return LlmReply(
            tool_calls=(ToolCall("c1", "add", {"a": 1, "b": 2}), ToolCall("c2", "add", {"a": 3, "b": 4}))
        )


async def test_a_parallel_tool_batch_streams_each_call_as_a_part_of_its_effect() -> None:
    built = AgentBuilder.new("two sums").llm(_TwoAtOnce()).tools(add).parallel_tools().with_clock(StepClock())
    events = await collect(built.build().unwrap().astream())
    parts = [
        event
        for event in events
        if isinstance(event, EffectRequested | EffectCompleted) and event.part is not None
    ]
    batch = {event.position for event in parts}
    assert len(batch) == 1
    (position,) = batch
    request = next(
        event for event in events if isinstance(event, EffectRequested) and event.position == position
    )
    assert request.part is None
    assert sorted(event.part or 0 for event in parts if isinstance(event, EffectRequested)) == [0, 1]
    done = [event for event in parts if isinstance(event, EffectCompleted)]
    assert sorted(event.part or 0 for event in done) == [0, 1]
    assert {event.outcome for event in done} == {OutcomeKind.OK}
    assert positions(events) == list(range(len(positions(events))))  # parts take no place of their own
