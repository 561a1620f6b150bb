"""The 14 required tests of the seed (000 section 4.27), under their own names."""

from __future__ import annotations

from returns.result import Failure, Result, Success

from agentsm_fn.agents.react import (
    REACT_MACHINE,
    AgentConfig,
    AgentFailed,
    AgentMemory,
    BuildError,
    Event,
    InvalidTransitionError,
    ReactCompleted,
    State,
)
from agentsm_fn.agents.react.effects import RunTool
from agentsm_fn.core import Fault, Snapshot, begin, emit, resume, step
from agentsm_fn.llm import LlmReply
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.shell.tools import ToolRunner
from agentsm_fn.tools import ToolRegistry
from tests.agents.react.helpers import answer, call, make_memory, tool_reply

SEARCH_SCHEMA = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
CALC_SCHEMA = {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}


def _builder(*script: LlmReply) -> tuple[AgentBuilder, ScriptedLlm]:
    llm = ScriptedLlm(script)
    builder = (
        AgentBuilder.new("What is the population of Paris times two?")
        .llm(llm)
        .tool("search", "Search the web", SEARCH_SCHEMA, lambda query: f"Results for {query}: 2.1 million")
        .tool("calculator", "Evaluate arithmetic", CALC_SCHEMA, lambda expression: "4.2 million")
        .with_clock(StepClock())
    )
    return builder, llm


def _three_step_script() -> tuple[LlmReply, ...]:
    return (
        tool_reply(call("search", "", query="population of Paris")),
        tool_reply(call("calculator", "", expression="2.1 * 2")),
        answer("Paris has about 2.1 million people; doubled, 4.2 million."),
    )


def _step(snap: Snapshot[State, AgentMemory]) -> Snapshot[State, AgentMemory]:
    return step(REACT_MACHINE, snap, 0.0).unwrap()


def test_idle_to_planning_transition() -> None:
    start = begin(REACT_MACHINE, AgentMemory.new("task"))
    assert start.state is State.Idle
    after = _step(start)
    assert after.state is State.Planning
    assert (after.trace[0].state, after.trace[0].event, after.trace[0].target) == (
        "Idle",
        "Start",
        "Planning",
    )


def test_planning_max_steps_guard() -> None:
    memory = make_memory(step=15)
    after = _step(Snapshot(state=State.Planning, memory=memory))
    assert after.state is State.Error
    assert after.trace[-1].event == Event.MaxSteps.name
    assert after.memory.step == 15


def test_planning_tool_blacklist() -> None:
    builder, llm = _builder(tool_reply(call("search", "")), answer("Paris is the capital of France."))
    result = builder.blacklist_tool("search").build().unwrap().run()
    done = result.unwrap()
    assert isinstance(done, ReactCompleted)
    assert [e.event for e in done.trace.for_state("Planning") if not e.event.startswith("request")] == [
        "ToolBlacklisted",
        "LlmFinalAnswer",
    ]
    assert done.memory.error is None
    assert all(t.name != "search" for t in llm.requests[0].tools)
    refused = next(e for e in done.trace if e.event == "ToolBlacklisted")
    assert refused.data == "step=1 blacklisted=search"


def test_acting_unknown_tool_is_failure_not_crash() -> None:
    memory = make_memory(step=1, current_tool_call=call("nonexistent"))
    after = _step(Snapshot(state=State.Acting, memory=memory))
    assert after.state is State.Observing
    assert after.trace[-1].event == "ToolFailure"
    assert after.memory.last_observation == "ERROR: ToolNotFound: Tool 'nonexistent' not found in registry"
    assert after.memory.error is None


def test_observing_triggers_reflection_at_step_5() -> None:
    memory = make_memory(step=5, current_tool_call=call(), last_observation="SUCCESS: Paris")
    after = _step(Snapshot(state=State.Observing, memory=memory))
    assert after.trace[-1].event == "NeedsReflection"
    assert after.state is State.Reflecting


def test_observing_commits_to_history() -> None:
    registry = ToolRegistry().register("search", "Search", SEARCH_SCHEMA, lambda query: "Paris")
    memory = make_memory(step=1, current_tool_call=call())
    awaiting = _step(Snapshot(state=State.Acting, memory=memory))
    assert isinstance(awaiting.pending, RunTool)
    outcome = ToolRunner(registry).run_one(awaiting.pending)
    observing = resume(REACT_MACHINE, awaiting, outcome, 1.0).unwrap()
    assert observing.state is State.Observing
    after = _step(observing)
    assert len(after.memory.history) == 1
    assert after.memory.history[0].observation == "SUCCESS: Paris"
    assert after.memory.current_tool_call is None and after.memory.last_observation is None


def test_full_run_with_mock_llm() -> None:
    builder, _ = _builder(*_three_step_script())
    result = builder.build().unwrap().run()
    assert isinstance(result, Success)
    done = result.unwrap()
    assert isinstance(done, ReactCompleted)
    assert done.answer == "Paris has about 2.1 million people; doubled, 4.2 million."
    assert [e.tool.name for e in done.memory.history] == ["search", "calculator"]


def test_full_run_reaches_done_state() -> None:
    builder, _ = _builder(*_three_step_script())
    done = builder.build().unwrap().run().unwrap()
    assert done.state is State.Done


def test_invalid_transition_returns_error() -> None:
    def wrong(memory: AgentMemory) -> Result[tuple[Event, AgentMemory], Fault]:
        return emit(Event.ReflectDone, memory)  # Idle has no ReflectDone row

    builder, _ = _builder()
    result = builder.build_with_handlers({State.Idle: wrong}).unwrap().run()
    error = result.failure()
    assert isinstance(error, InvalidTransitionError)
    assert (error.from_state, error.event) == (State.Idle, Event.ReflectDone)
    assert error.describe() == "Invalid transition: Idle + ReflectDone not in transition table"
    # A snapshot already in Done takes no step at all: terminal states have no rows.
    assert not any(source is State.Done for source, _ in REACT_MACHINE.table)


def test_trace_records_all_steps() -> None:
    builder, _ = _builder(*_three_step_script())
    done = builder.build().unwrap().run().unwrap()
    trace = done.trace
    assert len(trace) > 0
    moves = [(e.state, e.event, e.target) for e in trace if e.target]
    assert moves == [
        ("Idle", "Start", "Planning"),
        ("Planning", "LlmToolCall", "Acting"),
        ("Acting", "ToolSuccess", "Observing"),
        ("Observing", "Continue", "Planning"),
        ("Planning", "LlmToolCall", "Acting"),
        ("Acting", "ToolSuccess", "Observing"),
        ("Observing", "Continue", "Planning"),
        ("Planning", "LlmFinalAnswer", "Done"),
    ]
    assert (
        trace[0].data == "task='What is the population of Paris times two?' task_type='default' max_steps=15"
    )
    assert {e.state for e in trace} <= {s.name for s in State}


def test_tool_registry_execute_unknown_returns_err() -> None:
    result = ToolRegistry().execute("nonexistent", {})
    assert isinstance(result, Failure)
    assert result.failure().describe() == "ToolNotFound: Tool 'nonexistent' not found in registry"


def test_mock_llm_call_count() -> None:
    builder, llm = _builder(*_three_step_script())
    builder.model("gpt-4o").build().unwrap().run().unwrap()
    assert llm.call_count == 3
    assert [llm.model_for_call(n) for n in range(4)] == ["gpt-4o", "gpt-4o", "gpt-4o", None]


def test_agent_config_respected() -> None:
    loop = [tool_reply(call("search", "")) for _ in range(10)]
    builder, llm = _builder(*loop)
    result = builder.config(AgentConfig(max_steps=2)).build().unwrap().run()
    error = result.failure()
    assert isinstance(error, AgentFailed)
    assert error.message == "Max steps (2) reached without a final answer"
    assert llm.call_count == 2
    assert error.snapshot is not None and error.snapshot.memory.step == 2


def test_builder_requires_llm() -> None:
    result = AgentBuilder.new("task").build()
    error = result.failure()
    assert isinstance(error, BuildError)
    assert "LLM caller is required" in error.message
