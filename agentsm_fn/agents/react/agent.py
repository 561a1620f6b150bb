"""A built agent: the machine, its starting memory, and the IO it will be run with.

:class:`Agent` is a frozen value made by :class:`~agentsm_fn.agents.react.AgentBuilder`.
Its ``run``/``arun``/``resume`` methods hand it to the shell
(:mod:`agentsm_fn.shell.react_agent`, imported when called, so this pure package
never imports the shell when it is loaded).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias, cast

import attrs

from agentsm_fn.agents.react.memory import AgentMemory, HumanApprovalRequest
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.agents.react.result import RunResult, Suspended
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.machine import Machine
from agentsm_fn.llm.call import AsyncLlmProvider, LlmProvider
from agentsm_fn.tools.registry import ToolRegistry

__all__ = ["Agent", "Approver", "AsyncApprover", "Clock", "Provider", "async_provider", "sync_provider"]

Approver: TypeAlias = Callable[[HumanApprovalRequest], ApprovalDecision]
"""Decides about one tool call, synchronously."""
AsyncApprover: TypeAlias = Callable[[HumanApprovalRequest], Awaitable[ApprovalDecision]]
"""Decides about one tool call, asynchronously."""
Clock: TypeAlias = Callable[[], float]
"""Seconds since the epoch (the shell's clock)."""
Provider: TypeAlias = LlmProvider | AsyncLlmProvider
"""An LLM provider: sync, async, or both."""


def sync_provider(provider: object) -> LlmProvider | None:
    """``provider`` if it has a ``complete`` method, else None.

    The same test as ``isinstance(provider, LlmProvider)`` (a runtime-checkable protocol), without
    its cost: that check walks the protocol's members on every call, and runs once per agent run.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm
        >>> sync_provider(AsyncScriptedLlm([])) is not None, sync_provider(object())
        (True, None)
    """
    return cast(LlmProvider, provider) if getattr(provider, "complete", None) is not None else None


def async_provider(provider: object) -> AsyncLlmProvider | None:
    """``provider`` if it has an ``acomplete`` method, else None (``isinstance``, cheaper).

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> async_provider(ScriptedLlm([]))
    """
    return cast(AsyncLlmProvider, provider) if getattr(provider, "acomplete", None) is not None else None


def _name(value: object) -> str:
    return type(value).__name__


@attrs.frozen(kw_only=True)
class Agent:
    """A runnable agent. Without an approver, a call that needs approval suspends the run.

    Example:
        >>> from agentsm_fn.agents.react.builder import AgentBuilder
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> agent = AgentBuilder.new("t").llm(ScriptedLlm([])).build().unwrap()
        >>> agent
        Agent(task='t', llm=ScriptedLlm, tools=[], approval=suspend)
    """

    memory: AgentMemory
    machine: Machine[State, Event, AgentMemory]
    registry: ToolRegistry
    llm: Provider
    approver: Approver | None = None
    async_approver: AsyncApprover | None = None
    clock: Clock | None = None

    def __repr__(self) -> str:
        approval = "callback" if self.approver or self.async_approver else "suspend"
        tools = sorted(t.name for t in self.registry)
        return f"Agent(task={self.memory.task!r}, llm={_name(self.llm)}, tools={tools}, approval={approval})"

    def run(self) -> RunResult:
        """Run to Done (``Completed``), a pause (``Suspended``), or a typed failure."""
        from agentsm_fn.shell.react_agent import run_agent  # noqa: PLC0415 - the shell is imported on use

        return run_agent(self)

    async def arun(self) -> RunResult:
        """Run on asyncio: async provider, async tools and batches run concurrently."""
        from agentsm_fn.shell.react_agent import arun_agent  # noqa: PLC0415

        return await arun_agent(self)

    def resume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
        """Continue a suspended run with the human's decision."""
        from agentsm_fn.shell.react_agent import resume_agent  # noqa: PLC0415

        return resume_agent(self, suspended, decision)

    async def aresume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
        """Continue a suspended run with the human's decision, on asyncio."""
        from agentsm_fn.shell.react_agent import aresume_agent  # noqa: PLC0415

        return await aresume_agent(self, suspended, decision)
