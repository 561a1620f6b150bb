"""AgentFSM end to end: the shell runs tools and the clock, the result is a value with the FSM inside."""

from __future__ import annotations

import asyncio

import pytest
from returns.result import Failure, Success

from agentsm_fn.agents.plan_execute import (
    DecideMode,
    DeciderConfig,
    EngineFailed,
    ExecutionError,
    FinalizerConfig,
    HaltCause,
    MaxIterationsExceeded,
    PlanExecuteCompleted,
    PlanExecuteConfigError,
    PlanExecutePolicy,
    PlannerConfig,
)
from agentsm_fn.llm import LlmOutcome, LlmReply, LlmRequest, ToolResultMessage, Usage, thaw
from agentsm_fn.shell import StepClock
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.tools import ToolRegistry, tool
from agentsm_fn.tools.registry import ToolFn

from .helpers import (
    answer,
    build_agent,
    call,
    decision_reply,
    plan_reply,
    scripted,
    seed_tools,
    tool_reply,
)


def completed(agent: AgentFSM, text: str = "Find the best PDF library for Ruby") -> PlanExecuteCompleted:
    result = agent.run(text)
    assert isinstance(result, Success), result
    done: PlanExecuteCompleted = result.unwrap()
    return done


def test_tools_run_with_keyword_arguments_and_their_results_go_back_to_the_model() -> None:
    log: list[str] = []
    provider = scripted(plan_reply(), tool_reply(call("search", "c1", query="ruby pdf")), answer())
    done = completed(build_agent(provider, tools=seed_tools(log)))
    assert log == ["search:ruby pdf"]
    tool_message = provider.requests[2].messages[-1]
    assert tool_message == ToolResultMessage("c1", "search", '{"results": "Search results for: ruby pdf"}')
    assert done.fsm.memory.observations[0].content == '{"results": "Search results for: ruby pdf"}'


def test_each_stage_calls_the_provider_the_way_the_seed_maps_the_api() -> None:
    provider = scripted(plan_reply(), tool_reply(call("search", "c1")), answer(), answer("Summary."))
    completed(build_agent(provider, finalizer=FinalizerConfig(summarize=True)))
    plan, execute1, execute2, summary = provider.requests
    assert plan.response_schema is not None and plan.tools == ()  # /generate with format
    assert execute1.response_schema is None and [t.name for t in execute1.tools] == [
        "search",
        "read",
    ]  # /chat
    assert execute2.tools == execute1.tools
    assert summary.tools == () and summary.response_schema is None  # /chat, no tools


def test_history_audit_log_trace_and_usage_are_there_to_inspect() -> None:
    usage = Usage(input_tokens=3, output_tokens=1)
    provider = scripted(plan_reply(usage=usage), tool_reply(call(), usage=usage), answer(usage=usage))
    done = completed(build_agent(provider))
    history = [t.as_dict() for t in done.fsm.history]
    assert history[:2] == [
        {"from": 0, "to": 1, "reason": "Input normalized", "iteration": 0},
        {"from": 1, "to": 2, "reason": "Plan created", "iteration": 0},
    ]
    assert [h["iteration"] for h in history] == [0, 0, 0, 1, 1, 1, 2]
    kinds = [e.kind for e in done.fsm.audit_log]
    assert kinds == ["intake", "plan", "decision", "tool_calls", "tool", "answer", "finalize"]
    trace = done.fsm.trace
    transitions = [e for e in trace if e.target]
    assert [e.event for e in transitions][:3] == ["NORMALIZED", "VALID_PLAN", "CONTINUE"]
    assert transitions[0].data == "Input normalized"
    assert any(e.event == "request LlmCall" and "plan" in e.data for e in trace)
    assert done.fsm.usage.total_tokens == 12


def test_async_run_reaches_the_same_result() -> None:
    def script() -> list[LlmOutcome]:
        return [plan_reply(), tool_reply(call()), answer()]

    sync = completed(build_agent(scripted(*script())))
    result = asyncio.run(build_agent(scripted(*script())).arun("Find the best PDF library for Ruby"))
    assert result.unwrap().result == sync.result
    assert result.unwrap().fsm.memory == sync.fsm.memory


def test_async_tools_are_awaited_by_arun_and_by_run() -> None:
    async def lookup(query: str) -> str:
        """Look something up."""
        return f"found {query}"

    tools: dict[str, ToolFn] = {"lookup": lookup}
    provider = scripted(plan_reply(), tool_reply(call("lookup", "c1", query="q")), answer())
    done = asyncio.run(build_agent(provider, tools=tools).arun("x")).unwrap()
    assert done.fsm.memory.observations[0].content == "found q"

    provider = scripted(plan_reply(), tool_reply(call("lookup", "c1", query="q")), answer())
    done = build_agent(provider, tools=tools).run("x").unwrap()  # on a fresh event loop in a thread
    assert done.fsm.memory.observations[0].content == "found q"


def test_a_tool_that_raises_halts_with_a_tool_failure() -> None:
    def broken(query: str) -> str:
        raise OSError("disk on fire")

    provider = scripted(plan_reply(), tool_reply(call("search", "c1")), answer())
    error = build_agent(provider, tools={"search": broken}).run("x").failure()
    assert isinstance(error, ExecutionError)
    assert error.cause is HaltCause.TOOL_FAILURE
    assert "OSError: disk on fire" in error.describe()
    assert error.fsm.state_name == "HALT"


def test_a_tool_error_goes_back_to_the_model_when_the_policy_allows() -> None:
    provider = scripted(plan_reply(), tool_reply(call("nope", "c1")), answer("Recovered."))
    done = completed(build_agent(provider, policy=PlanExecutePolicy(halt_on_tool_error=False)))
    assert done.result.answer == "Recovered."
    last = provider.requests[2].messages[-1]
    assert isinstance(last, ToolResultMessage) and last.is_error and "unknown tool 'nope'" in last.content


def test_arguments_that_break_the_tool_schema_never_reach_the_tool() -> None:
    log: list[str] = []
    provider = scripted(plan_reply(), tool_reply(call("search", "c1", query=42)), answer())
    error = build_agent(provider, tools=seed_tools(log)).run("x").failure()
    assert log == []
    assert isinstance(error, ExecutionError) and "invalid arguments for search" in error.describe()


def test_a_forbidden_tool_is_never_run() -> None:
    log: list[str] = []
    provider = scripted(plan_reply(capabilities=()), tool_reply(call("read", "c1")), answer())
    agent = build_agent(provider, tools=seed_tools(log), policy=PlanExecutePolicy(forbidden_tools={"read"}))
    error = agent.run("x").failure()
    assert log == []
    assert isinstance(error, ExecutionError) and error.cause is HaltCause.POLICY_VIOLATION
    assert [t.name for t in provider.requests[1].tools] == ["search"]


def test_the_time_limit_uses_the_shell_clock() -> None:
    provider = scripted(plan_reply(), *[tool_reply(call("search", f"c{i}")) for i in range(5)])
    agent = build_agent(
        provider, policy=PlanExecutePolicy(time_limit_seconds=15), clock=StepClock(start=0.0, step=10.0)
    )
    error = agent.run("x").failure()
    assert isinstance(error, ExecutionError) and error.cause is HaltCause.TIMEOUT


def test_zero_iterations_halts_before_any_execute_call() -> None:
    provider = scripted(plan_reply())
    error = build_agent(provider, max_iterations=0).run("x").failure()
    assert isinstance(error, MaxIterationsExceeded)
    assert len(provider.requests) == 1


def test_an_llm_decider_can_stop_before_execute() -> None:
    provider = scripted(plan_reply(), decision_reply(False, "already answered"))
    done = completed(build_agent(provider, decider=DeciderConfig(mode=DecideMode.LLM)))
    assert (done.result.content, done.result.stopped_by) == ("already answered", "decide_stop")
    assert done.fsm.memory.iteration == 0


def test_a_finish_tool_ends_the_loop_with_its_result() -> None:
    def final_answer(text: str) -> str:
        """Give the final answer."""
        return text

    tools: dict[str, ToolFn] = {**seed_tools(), "final_answer": final_answer}
    provider = scripted(plan_reply(), tool_reply(call("final_answer", "c1", text="Prawn")))
    done = completed(build_agent(provider, tools=tools, finish_tools={"final_answer"}))
    assert (done.result.answer, done.result.stopped_by) == ("Prawn", "finish_tool:final_answer")


def test_tools_may_be_a_registry_or_tool_values_returning_results() -> None:
    @tool
    def search(query: str) -> object:
        """Search the web.

        Args:
            query: What to look for.
        """
        return Failure("index offline") if query == "bad" else Success(["a", "b"])

    registry = ToolRegistry().add(search)
    provider = scripted(plan_reply(), tool_reply(call("search", "c1", query="ok")), answer())
    done = completed(build_agent(provider, tools=registry))
    assert done.fsm.memory.observations[0].content == '["a", "b"]'
    spec = provider.requests[1].tools[0]
    assert spec.description == "Search the web."
    assert thaw(spec.parameters) == {
        "type": "object",
        "properties": {"query": {"type": "string", "description": "What to look for."}},
        "required": ["query"],
    }

    provider = scripted(plan_reply(), tool_reply(call("search", "c1", query="bad")), answer())
    error = build_agent(provider, tools={"search": search}).run("x").failure()
    assert isinstance(error, ExecutionError) and "index offline" in error.describe()


def test_a_sync_run_with_an_async_only_provider_fails_as_a_value() -> None:
    class AsyncOnly:
        async def acomplete(self, request: LlmRequest) -> LlmOutcome:
            return LlmReply(content='{"goal": "g"}')

    result = AgentFSM(provider=AsyncOnly(), clock=StepClock()).run("x")
    error = result.failure()
    assert isinstance(error, EngineFailed)
    assert error.fsm.state_name == "PLAN"
    assert "no performer" in error.describe()


def test_bad_configuration_is_reported_at_construction_with_every_problem() -> None:
    with pytest.raises(PlanExecuteConfigError) as caught:
        PlannerConfig(schema={"type": 12}, prompt_template="no placeholders {oops")
    assert len(caught.value.problems) == 2
    with pytest.raises(PlanExecuteConfigError, match="finish tool 'done' is not a declared tool"):
        build_agent(scripted(), finish_tools={"done"})
    with pytest.raises(ValueError, match="max_iterations"):
        build_agent(scripted(), max_iterations=-1)
