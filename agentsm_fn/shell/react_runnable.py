"""The runnable ReAct agent: :class:`Agent`, typed by its result (made by ``AgentBuilder.build``).

``Agent[R]`` runs the pure machine of :mod:`agentsm_fn.agents.react` in the shell
:func:`~agentsm_fn.shell.react_performers.react_shell` builds; its runs end in
``ReactCompleted[R]`` (whose ``result`` is an ``R``: the answer's text unless the builder
was given a result type), a suspension, or a typed failure.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Generic

import attrs

from agentsm_fn.agents.output.result_type import ResultT, ResultType
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.agents.react.result import EngineResult, RunResult, Suspended, interpret_react
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.llm.call import AnyLlmProvider
from agentsm_fn.shell.clock import Clock
from agentsm_fn.shell.human import Approver, AsyncApprover
from agentsm_fn.shell.react_performers import react_shell
from agentsm_fn.shell.run import Shell, aresume_run, arun, resume_run, run
from agentsm_fn.shell.streaming import BUFFER_SIZE, astream
from agentsm_fn.stream.events import RunEvent
from agentsm_fn.tools.registry import ToolRegistry

__all__ = ["Agent"]


@attrs.frozen(kw_only=True)
class Agent(Generic[ResultT]):
    """A runnable ReAct agent. Without an approver, a call that needs approval suspends the run.

    Example:
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> agent = AgentBuilder.new("t").llm(ScriptedLlm([])).build().unwrap()
        >>> agent
        Agent(task='t', llm=ScriptedLlm, tools=[], approval=suspend)
    """

    memory: AgentMemory
    machine: Machine[State, Event, AgentMemory]
    registry: ToolRegistry
    llm: AnyLlmProvider
    output: ResultType[ResultT]
    approver: Approver | None = None
    async_approver: AsyncApprover | None = None
    clock: Clock | None = None
    observer: RunObserver | None = None

    def __repr__(self) -> str:
        approval = "callback" if self.approver or self.async_approver else "suspend"
        tools = sorted(t.name for t in self.registry)
        llm = type(self.llm).__name__
        typed = "" if self.output.spec is None else f", result={self.output.name}"
        return f"Agent(task={self.memory.task!r}, llm={llm}, tools={tools}, approval={approval}{typed})"

    def shell(self) -> Shell:
        """The shell this agent runs in: its provider, tools, human channel, clock and observer."""
        shell = react_shell(self.llm, self.registry, self.approver, self.async_approver, self.clock)
        return shell if self.observer is None else attrs.evolve(shell, observer=self.observer)

    def interpret(self, result: EngineResult) -> RunResult[ResultT]:
        """The engine's run result as this agent's: Done (with its typed result), Error, suspended."""
        return interpret_react(result, self.output)

    def run(self) -> RunResult[ResultT]:
        """Run to Done (``ReactCompleted``), a pause (``Suspended``), or a typed failure."""
        return self.interpret(run(self.machine, self.memory, self.shell()))

    async def arun(self) -> RunResult[ResultT]:
        """Run on asyncio: async provider, async tools and batches run concurrently."""
        return self.interpret(await arun(self.machine, self.memory, self.shell()))

    def astream(self, buffer: int = BUFFER_SIZE) -> AsyncGenerator[RunEvent, None]:
        """:meth:`arun` as a stream of its events (:func:`~agentsm_fn.shell.astream`).

        The last event (``Finished``, ``Failed`` or ``AwaitingOutcome``) carries what
        :meth:`arun` returns as its ``result``.
        """
        return astream(self.machine, self.memory, self.shell(), buffer=buffer, result=self.interpret)

    def resume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult[ResultT]:
        """Continue a suspended run with the human's decision."""
        return self.interpret(resume_run(self.machine, suspended.snapshot, decision, self.shell()))

    async def aresume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult[ResultT]:
        """Continue a suspended run with the human's decision, on asyncio."""
        return self.interpret(await aresume_run(self.machine, suspended.snapshot, decision, self.shell()))
