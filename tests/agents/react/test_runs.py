"""Whole runs through the builder: every path end to end, sync and async, and every failure value."""

from __future__ import annotations

import attrs
from returns.result import Result

from agentsm_fn.agents.react import (
    REACT_MACHINE,
    SUMMARY_TOOL,
    AgentConfig,
    AgentFailed,
    AgentMemory,
    Event,
    LlmError,
    MemoryError,
    NoHandlerForState,
    ReactCompleted,
    SafetyCapExceededError,
    State,
    TokenBudget,
)
from agentsm_fn.agents.react.errors import from_run_failure
from agentsm_fn.core import Fault, Handler, Machine, begin, emit, replay
from agentsm_fn.llm import LlmReply, Usage
from agentsm_fn.shell import Shell, StepClock, run
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm, ScriptedLlm
from tests.agents.react.helpers import answer, call, tool_reply

OBJ = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
ANSWER = "Paris is the capital of France."


def _builder(llm: ScriptedLlm) -> AgentBuilder:
    return (
        AgentBuilder.new("Tell me about Paris")
        .llm(llm)
        .tool("search", "Search", OBJ, lambda query: f"found {query}")
        .tool("weather", "Weather", OBJ, lambda query: f"sunny in {query}")
        .with_clock(StepClock())
    )


def _events(done: ReactCompleted) -> list[str]:
    return [e.event for e in done.trace if e.target]


def test_low_confidence_goes_through_reflecting_and_back() -> None:
    llm = ScriptedLlm([tool_reply(call("search", query="x"), confidence=0.1), answer(ANSWER)])
    done = _builder(llm).build().unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert _events(done) == ["Start", "LowConfidence", "ReflectDone", "LlmFinalAnswer"]
    assert done.memory.retry_count == 0
    assert llm.call_count == 2  # empty history: nothing to compress, no reflect call


def test_reflection_compresses_history_every_n_steps() -> None:
    script = [tool_reply(call("search", f"c{i}", query=str(i))) for i in range(2)]
    llm = ScriptedLlm([*script, answer("Summary: searched 0 and 1."), answer(ANSWER)])
    agent = _builder(llm).config(AgentConfig(reflect_every_n_steps=2)).build().unwrap()
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert "NeedsReflection" in _events(done)
    (summary,) = done.memory.history
    assert summary.tool.name == SUMMARY_TOOL and summary.observation == "Summary: searched 0 and 1."
    assert llm.requests[2].messages[0].content.startswith("Summarize the following tool call history")
    final_prompt = llm.requests[3].messages[0]
    assert "Summary of the work so far: Summary: searched 0 and 1." in final_prompt.content


def test_parallel_calls_run_and_commit_in_call_order() -> None:
    llm = ScriptedLlm(
        [tool_reply(call("search", "a", query="x"), call("weather", "b", query="Paris")), answer(ANSWER)]
    )
    done = _builder(llm).build().unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert _events(done)[:3] == ["Start", "LlmParallelToolCalls", "ToolSuccess"]
    assert [(e.tool.id, e.observation) for e in done.memory.history] == [
        ("a", "SUCCESS: found x"),
        ("b", "SUCCESS: sunny in Paris"),
    ]
    (assistant, *_results) = llm.requests[1].messages[1:]
    assert len(assistant.tool_calls) == 2  # type: ignore[union-attr]  # an AssistantMessage


async def test_async_run_with_async_provider() -> None:
    llm = AsyncScriptedLlm(
        [tool_reply(call("search", "a", query="x"), call("weather", "b", query="y")), answer(ANSWER)]
    )
    done = (await _builder(llm).build().unwrap().arun()).unwrap()
    assert isinstance(done, ReactCompleted)
    assert done.answer == ANSWER
    assert len(done.memory.history) == 2


def test_tool_failure_is_an_observation_and_the_run_goes_on() -> None:
    def broken(query: str) -> str:
        raise ConnectionError("search backend down")

    llm = ScriptedLlm([tool_reply(call("search", query="x")), answer(ANSWER)])
    agent = _builder(llm).tool("search", "Search", OBJ, broken).build().unwrap()
    done = agent.run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert done.memory.history[0].observation == "ERROR: ConnectionError: search backend down"


def test_budget_exceeded_stops_the_run() -> None:
    spend = Usage(input_tokens=60, output_tokens=50)
    llm = ScriptedLlm([tool_reply(call("search", query="x"), usage=spend), answer(ANSWER)])
    result = _builder(llm).budget(TokenBudget(total=100)).build().unwrap().run()
    error = result.failure()
    assert isinstance(error, AgentFailed)
    assert error.message == "Token budget exceeded: total tokens 110 >= budget 100"
    assert llm.call_count == 1


def test_answer_too_short_retries_planning() -> None:
    llm = ScriptedLlm([answer("Paris."), answer(ANSWER)])
    done = _builder(llm).build().unwrap().run().unwrap()
    assert isinstance(done, ReactCompleted)
    assert _events(done) == ["Start", "AnswerTooShort", "LlmFinalAnswer"]
    assert done.memory.step == 2


def test_script_exhaustion_is_a_clear_agent_failure() -> None:
    llm = ScriptedLlm([])
    error = _builder(llm).build().unwrap().run().failure()
    assert isinstance(error, AgentFailed)
    assert "script_exhausted" in error.message and "no more programmed responses" in error.message


def test_sync_run_with_an_async_only_provider_is_an_llm_error() -> None:
    class OnlyAsync:
        async def acomplete(self, request: object) -> LlmReply:
            return answer(ANSWER)

    error = _builder(ScriptedLlm([])).llm(OnlyAsync()).build().unwrap().run().failure()
    assert isinstance(error, LlmError)
    assert error.snapshot is not None and error.snapshot.state is State.Planning


def test_a_handler_that_never_advances_hits_the_safety_cap() -> None:
    def stuck(memory: AgentMemory) -> Result[tuple[Event, AgentMemory], Fault]:
        return emit(Event.ToolBlacklisted, memory)  # loops without consuming a step

    agent = _builder(ScriptedLlm([])).max_steps(2).build_with_handlers({State.Planning: stuck}).unwrap()
    error = agent.run().failure()
    assert isinstance(error, SafetyCapExceededError)
    assert error.iterations == 13


def test_corrupt_memory_in_observing_is_a_memory_error() -> None:
    def hollow(memory: AgentMemory) -> Result[tuple[Event, AgentMemory], Fault]:
        return emit(Event.ToolSuccess, memory)  # no observation recorded

    llm = ScriptedLlm([tool_reply(call("search", query="x"))])
    error = _builder(llm).build_with_handlers({State.Acting: hollow}).unwrap().run().failure()
    assert isinstance(error, MemoryError)
    assert "no tool call result to commit" in error.message


def test_missing_handler_is_no_handler_for_state() -> None:
    handlers: dict[State, Handler[Event, AgentMemory]] = {
        s: h for s, h in REACT_MACHINE.handlers.items() if s is not State.Planning
    }
    broken = attrs.evolve(REACT_MACHINE, handlers=handlers)
    assert isinstance(broken, Machine)
    result = run(broken, AgentMemory.new("t"), Shell(clock=StepClock()))
    error = from_run_failure(result.failure())
    assert isinstance(error, NoHandlerForState)
    assert error.describe() == "No handler registered for state: Planning"


def test_build_collects_every_problem() -> None:
    bad = AgentBuilder.new("t").config(AgentConfig(max_steps=-1, confidence_threshold=2.0))
    message = bad.build_with_handlers({State.Done: lambda m: emit(Event.Start, m)}).failure().message
    assert "LLM caller is required" in message
    assert "config.max_steps must be >= 0" in message
    assert "confidence_threshold must be in [0, 1]" in message
    assert "terminal state Done" in message
    not_a_provider = AgentBuilder.new("t").llm(object()).build().failure().message  # type: ignore[arg-type]  # the point
    assert "neither complete() nor acomplete()" in not_a_provider


def test_builder_is_immutable_and_last_call_wins() -> None:
    base = AgentBuilder.new("t")
    configured = base.max_steps(3).config(AgentConfig(max_steps=9)).max_steps(4)
    assert base.memory.config.max_steps == 15
    assert configured.memory.config.max_steps == 4
    assert configured.task("other").memory.task == "other"
    assert configured.memory.task == "t"


def test_run_replays_from_its_journal() -> None:
    llm = ScriptedLlm([tool_reply(call("search", query="x")), answer(ANSWER)])
    agent = _builder(llm).build().unwrap()
    done = agent.run().unwrap()
    replayed = replay(agent.machine, begin(agent.machine, agent.memory), done.snapshot.journal).unwrap()
    assert replayed == done.snapshot


def test_public_types_have_useful_reprs() -> None:
    llm = ScriptedLlm([answer(ANSWER)])
    agent = _builder(llm).build().unwrap()
    assert (
        repr(agent)
        == "Agent(task='Tell me about Paris', llm=ScriptedLlm, tools=['search', 'weather'], approval=suspend)"
    )
    done = agent.run().unwrap()
    assert repr(done) == "ReactCompleted(snapshot=<Done after 2 transitions>)"
    assert repr(llm) == "ScriptedLlm(scripted=1, calls=1)"
    assert "AgentMemory(task='Tell me about Paris'" in repr(done.memory)
    assert "max_steps=15" in repr(AgentConfig())
    assert repr(AgentFailed("x")) == "AgentFailed(message='x')"
    assert repr(agent.registry) == "ToolRegistry(tools=['search', 'weather'])"
