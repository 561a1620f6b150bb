"""What the plan-and-execute agent does when an effect fails: a raising LLM, tools, or clock."""

from __future__ import annotations

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE, ExecutionError, HaltCause, State
from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
from agentsm_fn.agents.plan_execute.effects import ReadClock, RunTools
from agentsm_fn.agents.plan_execute.policy import PlanExecutePolicy
from agentsm_fn.core import EffectFailure, begin, replay
from agentsm_fn.llm import LlmCall, LlmReply, LlmRequest
from agentsm_fn.shell import Performers, Shell, StepClock, run
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.tools import ToolRegistry
from tests.agents.plan_execute.helpers import answer, call, memory, plan_reply, scripted, tool_reply


class DownLlm:
    def complete(self, request: LlmRequest) -> LlmReply:
        raise ConnectionError("provider unreachable")


def test_a_raising_llm_halts_with_a_provider_failure_naming_it() -> None:
    error = AgentFSM(provider=DownLlm(), clock=StepClock()).run("Say hello").failure()
    assert isinstance(error, ExecutionError)
    assert error.cause is HaltCause.PROVIDER_FAILURE
    assert "performer raised ConnectionError: provider unreachable" in error.describe()


def test_a_raising_tool_performer_fails_every_call_of_the_batch() -> None:
    llm = scripted(plan_reply(), tool_reply(call("search", query="ruby pdf")), answer())
    shell = Shell(
        Performers()
        .on(LlmCall, lambda effect: llm.complete(effect.request))
        .on(RunTools, lambda effect: (_ for _ in ()).throw(OSError("sandbox died"))),
        StepClock(),
    )
    start = begin(PLAN_EXECUTE_MACHINE, memory())
    done = run(PLAN_EXECUTE_MACHINE, start, shell).unwrap()
    assert done.state is State.HALT  # halt_on_tool_error is on by default
    assert (
        done.memory.observations[0].content == "ERROR: EffectFailure: performer raised OSError: sandbox died"
    )
    assert replay(PLAN_EXECUTE_MACHINE, start, done.journal).unwrap() == done


def test_a_clock_that_cannot_be_read_is_noted_at_intake_and_halts_at_loop_check() -> None:
    llm = scripted(plan_reply(), tool_reply(call("search", query="ruby pdf")), answer())
    config = PlanExecuteConfig(tools=memory().config.tools, policy=PlanExecutePolicy(time_limit_seconds=60))

    def no_clock(effect: ReadClock) -> float:
        raise OSError("clock device gone")

    shell = Shell(
        Performers()
        .on(LlmCall, lambda effect: llm.complete(effect.request))
        .on(RunTools, lambda effect: None)
        .on(ReadClock, no_clock),
        StepClock(),
    )
    done = run(PLAN_EXECUTE_MACHINE, memory(config=config), shell).unwrap()
    notes = [entry.message for entry in done.memory.audit_log if entry.kind == "clock"]
    said = "clock unavailable (performer raised OSError: clock device gone); "
    said += "the time limit starts at the next reading"
    assert notes == [said]
    assert done.state is State.HALT and done.memory.error is not None
    assert done.memory.error.cause is HaltCause.TIMEOUT
    assert "the time limit cannot be checked" in done.memory.error.message


def test_retry_safe_tools_make_a_retry_safe_batch() -> None:
    registry = (
        ToolRegistry()
        .register("search", "Search", {"type": "object"}, lambda query: "found", retry_safe=True)
        .register("pay", "Pay", {"type": "object"}, lambda amount: "paid")
    )
    config = AgentFSM(provider=DownLlm(), tools=registry).config
    assert config.retry_safe_tools == frozenset({"search"})
    assert ReadClock.retry_safe and not RunTools(()).retry_safe
    assert EffectFailure.unknown("RunTools").kind.name == "UNKNOWN"
