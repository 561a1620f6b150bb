"""What the ReAct agent does when an effect fails: a raising or hanging LLM, tool or approval."""

from __future__ import annotations

import asyncio

from returns.result import Failure

from agentsm_fn.agents.react import REACT_MACHINE, AgentFailed, AgentMemory, Approved, State
from agentsm_fn.agents.react.acting import act
from agentsm_fn.agents.react.effects import AskHuman, RunTool, RunToolBatch
from agentsm_fn.core import SUSPEND, EffectFailure, Perform, Snapshot, replay
from agentsm_fn.llm import LlmCall, LlmReply, LlmRequest
from agentsm_fn.shell import Performers, Shell, StepClock, arun, resume_run, run
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import ToolDef
from tests.agents.react.helpers import answer, call, make_memory, tool_reply


class DownLlm:
    """A provider that raises (providers should return LlmFailure; a user's may not)."""

    def complete(self, request: LlmRequest) -> LlmReply:
        raise ConnectionError("provider unreachable")


def test_a_raising_llm_ends_the_agent_with_a_clear_error() -> None:
    agent = AgentBuilder.new("What is 2 + 2?").llm(DownLlm()).with_clock(StepClock()).build().unwrap()
    error = agent.run().failure()
    assert isinstance(error, AgentFailed)
    said = "LLM call failed: effect_failed: performer raised ConnectionError: provider unreachable"
    assert error.message == said
    assert error.snapshot is not None and error.snapshot.state is State.Error


def _raising_tool(effect: RunTool) -> object:
    raise OSError(f"tool host for {effect.call.name} is down")


def _scripted(*replies: LlmReply) -> Performers:
    llm = ScriptedLlm(replies)
    return Performers().on(LlmCall, lambda effect: llm.complete(effect.request))


def test_a_raising_tool_performer_is_observed_as_a_tool_error_and_the_agent_goes_on() -> None:
    def shell() -> Shell:  # a fresh script per run
        performers = _scripted(tool_reply(call("search")), answer("Paris, as far as I know."))
        return Shell(performers.on(RunTool, _raising_tool), StepClock())

    start = Snapshot(state=State.Idle, memory=make_memory())
    for result in (run(REACT_MACHINE, start, shell()), asyncio.run(arun(REACT_MACHINE, start, shell()))):
        done = result.unwrap()
        assert done.state is State.Done
        observation = done.memory.history[-1].observation
        assert observation == "ERROR: EffectFailure: performer raised OSError: tool host for search is down"
        assert replay(REACT_MACHINE, start, done.journal).unwrap() == done


def test_a_timed_out_parallel_batch_fails_every_call() -> None:
    async def hang(effect: RunToolBatch) -> object:
        await asyncio.Event().wait()
        return None

    two = tool_reply(call("search", "c1"), call("calculator", "c2", expression="1+1"))  # parallel by default
    performers = _scripted(two, answer("Nothing came back in time.")).on_async(
        RunToolBatch, hang, timeout=0.05
    )
    done = asyncio.run(arun(REACT_MACHINE, make_memory(), Shell(performers, StepClock()))).unwrap()
    assert done.state is State.Done
    timed_out = "ERROR: EffectFailure: performer timed out: no outcome within 0.05s"
    assert [(h.tool.id, h.observation) for h in done.memory.history] == [("c1", timed_out), ("c2", timed_out)]


def test_an_unknown_approval_is_a_rejection_and_the_tool_never_runs() -> None:
    ran: list[str] = []

    def run_tool(effect: RunTool) -> object:
        ran.append(effect.call.name)
        return None

    performers = _scripted(tool_reply(call("delete_file", path="/tmp/x")), answer("I did not delete it."))
    performers = performers.on(RunTool, run_tool)
    waiting = run(REACT_MACHINE, make_memory(), Shell(performers.on(AskHuman, lambda e: SUSPEND))).unwrap()
    assert waiting.state is State.WaitingForHuman
    unknown = EffectFailure.unknown("AskHuman delete_file")  # the approval was in flight at a crash
    done = resume_run(REACT_MACHINE, waiting, unknown, Shell(performers.on(AskHuman, lambda e: Approved())))
    assert ran == [] and done.unwrap().state is State.Done
    observation = done.unwrap().memory.history[-1].observation
    assert observation.endswith("no approval: outcome unknown: in flight when the run stopped")


def test_retry_safety_of_the_agents_effects() -> None:
    tools = [ToolDef(name="read", description="", retry_safe=True), ToolDef(name="pay", description="")]
    memory = AgentMemory.new("t").with_tools(tools)
    assert LlmCall(LlmRequest(model="", messages=())).retry_safe
    assert not AskHuman.retry_safe
    effects = [act(memory.evolve(current_tool_call=call(name, x=1))).unwrap() for name in ("read", "pay")]
    read, pay = (e.effect if isinstance(e, Perform) else None for e in effects)
    assert isinstance(read, RunTool) and isinstance(pay, RunTool)
    assert read.retry_safe and not pay.retry_safe
    assert not RunToolBatch((read, pay)).retry_safe and RunToolBatch((read,)).retry_safe
    assert isinstance(run(REACT_MACHINE, make_memory(), Shell(Performers(), StepClock())), Failure)
