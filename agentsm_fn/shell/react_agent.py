"""Running a built ReAct agent: wire the provider, tool runner, human channel and clock.

The one place an :class:`~agentsm_fn.agents.react.Agent` meets the world.
``run_agent``/``arun_agent`` start a run; ``resume_agent``/``aresume_agent``
deliver a human's decision to a suspended one (it may come from JSON, written
by another process).
"""

from __future__ import annotations

from collections.abc import Awaitable
from types import MappingProxyType
from typing import cast

from returns.result import Failure

from agentsm_fn.agents.react.agent import Agent, async_provider, sync_provider
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.agents.react.result import RunResult, Suspended, interpret
from agentsm_fn.core.engine import resume
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.replies import LlmOutcome
from agentsm_fn.shell.clock import system_clock
from agentsm_fn.shell.human import async_callback_performers, callback_performers, suspending_performers
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.run import Shell, arun, run
from agentsm_fn.shell.tools import ToolRunner

__all__ = ["aresume_agent", "arun_agent", "resume_agent", "run_agent", "shell_for"]


def _llm_performers(agent: Agent) -> Performers:
    sync: dict[type, Performer] = {}
    asynchronous: dict[type, AsyncPerformer] = {}
    provider = sync_provider(agent.llm)
    if provider is not None:
        complete_sync = provider.complete

        def complete(effect: LlmCall) -> LlmOutcome:
            return complete_sync(effect.request)

        sync[LlmCall] = cast(Performer, complete)  # as Performers.on: it only receives LlmCall
    aprovider = async_provider(agent.llm)
    if aprovider is not None:
        complete_async = aprovider.acomplete

        def acomplete(effect: LlmCall) -> Awaitable[LlmOutcome]:
            return complete_async(effect.request)  # the provider's coroutine itself: no extra layer

        asynchronous[LlmCall] = cast(AsyncPerformer, acomplete)
    return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))


_SUSPENDING = suspending_performers()  # a constant: made once, not once per run


def _human_performers(agent: Agent) -> Performers:
    performers = _SUSPENDING
    if agent.approver is not None:
        performers = performers.merge(callback_performers(agent.approver))
    if agent.async_approver is not None:
        performers = performers.merge(async_callback_performers(agent.async_approver))
    return performers


def _merged(*parts: Performers) -> Performers:
    """``parts[0].merge(parts[1]).merge(...)`` in one pass (later parts win)."""
    sync: dict[type, Performer] = {}
    asynchronous: dict[type, AsyncPerformer] = {}
    for part in parts:
        sync.update(part.sync)
        asynchronous.update(part.asynchronous)
    return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))


def shell_for(agent: Agent) -> Shell:
    """The shell an agent runs in: its provider, tools, human channel and clock.

    Example:
        >>> from agentsm_fn.agents.react.builder import AgentBuilder
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> shell = shell_for(AgentBuilder.new("t").llm(ScriptedLlm([])).build().unwrap())
        >>> sorted(k.__name__ for k in shell.performers.sync)
        ['AskHuman', 'LlmCall', 'RunTool', 'RunToolBatch']
    """
    performers = _merged(
        _llm_performers(agent), ToolRunner(agent.registry).performers(), _human_performers(agent)
    )
    return Shell(performers, agent.clock or system_clock)


def run_agent(agent: Agent) -> RunResult:
    """Run ``agent`` synchronously to Done, a suspension, or a typed failure."""
    return interpret(run(agent.machine, agent.memory, shell_for(agent)))


async def arun_agent(agent: Agent) -> RunResult:
    """Run ``agent`` on asyncio."""
    return interpret(await arun(agent.machine, agent.memory, shell_for(agent)))


def resume_agent(agent: Agent, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
    """Deliver ``decision`` to a suspended run of ``agent`` and run on (sync)."""
    shell = shell_for(agent)
    resumed = resume(agent.machine, suspended.snapshot, decision, shell.clock())
    return interpret(resumed.bind(lambda snap: run(agent.machine, snap, shell)))


async def aresume_agent(agent: Agent, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
    """Deliver ``decision`` to a suspended run of ``agent`` and run on (asyncio)."""
    shell = shell_for(agent)
    resumed = resume(agent.machine, suspended.snapshot, decision, shell.clock())
    if isinstance(resumed, Failure):
        return interpret(resumed)
    return interpret(await arun(agent.machine, resumed.unwrap(), shell))
