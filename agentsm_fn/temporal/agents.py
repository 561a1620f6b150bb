"""Both built-in agents on Temporal: their machines as workflow types, their IO as activities.

The client needs the agent's machine and start memory; a worker needs the same
machine and the agent's performers (its provider's LLM calls, its tools; plan-and-
execute's clock readings too). An approval with no callback is awaited: the run
waits for ``TemporalRun.answer`` instead of suspending.

    client:  run = await start_run(client, react_on_temporal(agent), agent.memory, ...)
    worker:  machine_worker(client, queue, [react_on_temporal(agent)], agent.shell().performers)
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from agentsm_fn.agents import plan_execute
from agentsm_fn.agents.output.result_type import ResultT
from agentsm_fn.agents.plan_execute import PlanExecuteMemory, ReadClock, RunTools
from agentsm_fn.agents.react import AgentMemory, AskHuman, Event, RunTool, RunToolBatch, State
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import Agent
from agentsm_fn.temporal.machines import TemporalMachine
from agentsm_fn.temporal.options import EffectOptions

__all__ = ["LLM_OPTIONS", "TOOL_OPTIONS", "plan_execute_on_temporal", "react_on_temporal"]

LLM_OPTIONS: Final = EffectOptions(timeout=120.0, attempts=3, backoff=1.0)
"""An LLM call: retry-safe, so a failed or lost attempt is tried again (same idempotency key)."""
TOOL_OPTIONS: Final = EffectOptions(timeout=300.0, heartbeat=10.0, attempts=3)
"""A tool run: a worker that dies is noticed within ten seconds; retried only if the tool is retry-safe."""


def _options(tools: EffectOptions, llm: EffectOptions, *tool_effects: type) -> Mapping[type, EffectOptions]:
    return MappingProxyType({LlmCall: llm, **dict.fromkeys(tool_effects, tools)})


def react_on_temporal(
    agent: Agent[ResultT], *, llm: EffectOptions = LLM_OPTIONS, tools: EffectOptions = TOOL_OPTIONS
) -> TemporalMachine[State, Event, AgentMemory]:
    """The ReAct agent's machine as a workflow type; approvals awaited unless it has a callback.

    Example:
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> spec = react_on_temporal(AgentBuilder.new("t").llm(ScriptedLlm([])).build().unwrap())
        >>> spec.name, spec.is_awaited(AskHuman)
        ('react', True)
    """
    has_callback = agent.approver is not None or agent.async_approver is not None
    return TemporalMachine(
        machine=agent.machine,
        options=_options(tools, llm, RunTool, RunToolBatch),
        awaited=() if has_callback else (AskHuman,),
    )


def plan_execute_on_temporal(
    fsm: AgentFSM[ResultT], *, llm: EffectOptions = LLM_OPTIONS, tools: EffectOptions = TOOL_OPTIONS
) -> TemporalMachine[plan_execute.State, plan_execute.Event, PlanExecuteMemory]:
    """The agent's machine as a workflow type (start it from ``fsm.start(input)``).

    Its config is in the memory; the machine is :func:`~agentsm_fn.agents.plan_execute.plan_execute_machine`
    of its result type (``PLAN_EXECUTE_MACHINE`` for text), so a typed result is read as its class.

    Clock readings (the policy's time limit) are short activities on the worker.

    Example:
        >>> from agentsm_fn.llm import LlmReply
        >>> class Quiet:
        ...     def complete(self, request):
        ...         return LlmReply(content="ok")
        >>> plan_execute_on_temporal(AgentFSM(provider=Quiet())).name
        'plan_execute'
    """
    options = {**_options(tools, llm, RunTools), ReadClock: EffectOptions(timeout=10.0)}
    return TemporalMachine(machine=fsm.machine, options=options)
