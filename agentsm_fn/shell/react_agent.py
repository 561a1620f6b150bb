"""The ReAct agent, ready to run: the fluent :class:`AgentBuilder` and the :class:`Agent` it builds.

Every builder call returns a new builder, and configuration calls apply at once, so
the last call wins (the seed applied ``config()`` at build time, silently undoing an
earlier ``max_steps()``). ``build()`` returns ``Failure(BuildError)`` listing every
problem (no LLM, a handler for a terminal state, a negative limit...);
``build_with_handlers`` really replaces handlers (the seed's version ignored its
argument). :class:`Agent` runs the pure machine of :mod:`agentsm_fn.agents.react`
in the shell :func:`~agentsm_fn.shell.react_performers.react_shell` builds; a suspended
run resumes with a human's decision (it may come from JSON, written by another process).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping
from typing import TypedDict, Unpack

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react.config import AgentConfig, TokenBudget
from agentsm_fn.agents.react.errors import BuildError
from agentsm_fn.agents.react.machine import REACT_MACHINE
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.agents.react.result import RunResult, Suspended, interpret_react
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.machine import HandlerLike, Machine, MachineDefinitionError
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.llm.call import AnyLlmProvider
from agentsm_fn.shell.clock import Clock
from agentsm_fn.shell.human import Approver, AsyncApprover
from agentsm_fn.shell.react_performers import async_provider, react_shell, sync_provider
from agentsm_fn.shell.run import Shell, aresume_run, arun, resume_run, run
from agentsm_fn.shell.streaming import BUFFER_SIZE, astream
from agentsm_fn.stream.events import RunEvent
from agentsm_fn.tools.registry import Tool, ToolFn, ToolRegistry

__all__ = ["Agent", "AgentBuilder"]


@attrs.frozen(kw_only=True)
class Agent:
    """A runnable ReAct agent. Without an approver, a call that needs approval suspends the run.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> agent = AgentBuilder.new("t").llm(ScriptedLlm([])).build().unwrap()
        >>> agent
        Agent(task='t', llm=ScriptedLlm, tools=[], approval=suspend)
    """

    memory: AgentMemory
    machine: Machine[State, Event, AgentMemory]
    registry: ToolRegistry
    llm: AnyLlmProvider
    approver: Approver | None = None
    async_approver: AsyncApprover | None = None
    clock: Clock | None = None
    observer: RunObserver | None = None

    def __repr__(self) -> str:
        approval = "callback" if self.approver or self.async_approver else "suspend"
        tools = sorted(t.name for t in self.registry)
        llm = type(self.llm).__name__
        return f"Agent(task={self.memory.task!r}, llm={llm}, tools={tools}, approval={approval})"

    def shell(self) -> Shell:
        """The shell this agent runs in: its provider, tools, human channel, clock and observer."""
        shell = react_shell(self.llm, self.registry, self.approver, self.async_approver, self.clock)
        return shell if self.observer is None else attrs.evolve(shell, observer=self.observer)

    def run(self) -> RunResult:
        """Run to Done (``ReactCompleted``), a pause (``Suspended``), or a typed failure."""
        return interpret_react(run(self.machine, self.memory, self.shell()))

    async def arun(self) -> RunResult:
        """Run on asyncio: async provider, async tools and batches run concurrently."""
        return interpret_react(await arun(self.machine, self.memory, self.shell()))

    def astream(self, buffer: int = BUFFER_SIZE) -> AsyncGenerator[RunEvent, None]:
        """:meth:`arun` as a stream of its events (:func:`~agentsm_fn.shell.astream`).

        The last event (``Finished``, ``Failed`` or ``AwaitingOutcome``) carries what
        :meth:`arun` returns as its ``result``.
        """
        return astream(self.machine, self.memory, self.shell(), buffer=buffer, result=interpret_react)

    def resume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
        """Continue a suspended run with the human's decision."""
        return interpret_react(resume_run(self.machine, suspended.snapshot, decision, self.shell()))

    async def aresume(self, suspended: Suspended, decision: ApprovalDecision) -> RunResult:
        """Continue a suspended run with the human's decision, on asyncio."""
        return interpret_react(await aresume_run(self.machine, suspended.snapshot, decision, self.shell()))


def _config_problems(config: AgentConfig) -> list[str]:
    problems = []
    for name in ("max_steps", "max_retries", "reflect_every_n_steps", "min_answer_length"):
        if getattr(config, name) < 0:
            problems.append(f"config.{name} must be >= 0, got {getattr(config, name)}")
    if not 0.0 <= config.confidence_threshold <= 1.0:
        problems.append(f"config.confidence_threshold must be in [0, 1], got {config.confidence_threshold}")
    return problems


class _BuilderChanges(TypedDict, total=False):
    memory: AgentMemory
    registry: ToolRegistry
    provider: AnyLlmProvider | None
    approver: Approver | None
    async_approver: AsyncApprover | None
    clock: Clock | None
    observer: RunObserver | None


@attrs.frozen(kw_only=True, slots=False)  # not slotted: _with copies one dict
class AgentBuilder:
    """Build an :class:`Agent` step by step; the builder itself never changes.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> b = AgentBuilder.new("What is 2 + 2?").task_type("calculation").max_steps(5)
        >>> b.build().failure().describe()
        'Build error: LLM caller is required (call .llm(provider))'
        >>> b = b.llm(ScriptedLlm([])).model("gpt-4o").model_for("calculation", "gpt-4o-mini")
        >>> agent = b.build().unwrap()
        >>> agent.memory.config.max_steps, dict(agent.memory.config.models)["calculation"]
        (5, 'gpt-4o-mini')
    """

    memory: AgentMemory
    registry: ToolRegistry = attrs.field(factory=ToolRegistry)
    provider: AnyLlmProvider | None = None
    approver: Approver | None = None
    async_approver: AsyncApprover | None = None
    clock: Clock | None = None
    observer: RunObserver | None = None

    @classmethod
    def new(cls, task: str) -> AgentBuilder:
        """A builder for ``task`` with the seed's defaults."""
        return cls(memory=AgentMemory.new(task))

    def _with(self, **changes: Unpack[_BuilderChanges]) -> AgentBuilder:
        """A copy with ``changes`` (``attrs.evolve`` as one dict copy: a builder is copied per call)."""
        new = object.__new__(AgentBuilder)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def _memory(self, **changes: object) -> AgentBuilder:
        return self._with(memory=attrs.evolve(self.memory, **changes))  # type: ignore[arg-type]  # field names and types are checked by attrs at run time

    def task(self, task: str) -> AgentBuilder:
        """Replace the task."""
        return self._memory(task=task)

    def task_type(self, task_type: str) -> AgentBuilder:
        """Set the task type, the key of model routing ("default" by default)."""
        return self._memory(task_type=task_type)

    def system_prompt(self, prompt: str) -> AgentBuilder:
        """Set the system prompt sent with every planning call."""
        return self._memory(system_prompt=prompt)

    def llm(self, provider: AnyLlmProvider) -> AgentBuilder:
        """Set the LLM provider (required): anything with ``complete`` and/or ``acomplete``."""
        return self._with(provider=provider)

    def config(self, config: AgentConfig) -> AgentBuilder:
        """Replace the whole configuration (and the token budget with it)."""
        return self._with(memory=self.memory.with_config(config))

    def _config(self, **changes: object) -> AgentBuilder:
        return self.config(attrs.evolve(self.memory.config, **changes))  # type: ignore[arg-type]  # as in _memory

    def max_steps(self, n: int) -> AgentBuilder:
        """Set ``config.max_steps`` only."""
        return self._config(max_steps=n)

    def model(self, model: str) -> AgentBuilder:
        """Set the "default" model."""
        return self.model_for("default", model)

    def model_for(self, task_type: str, model: str) -> AgentBuilder:
        """Route ``task_type`` to ``model``."""
        return self.config(self.memory.config.with_model(task_type, model))

    def budget(self, budget: TokenBudget | None) -> AgentBuilder:
        """Limit the run's tokens (input, output, total)."""
        return self._config(budget=budget)

    def parallel_tools(self, enabled: bool = True) -> AgentBuilder:
        """Run several tool calls of one reply concurrently (on by default)."""
        return self._config(parallel_tools=enabled)

    def tool(
        self,
        name: str,
        description: str,
        schema: Mapping[str, object],
        fn: ToolFn,
        *,
        needs_approval: bool = False,
        timeout: float | None = None,
    ) -> AgentBuilder:
        """Register a tool by name, description, JSON Schema and function."""
        registry = self.registry.register(
            name, description, schema, fn, needs_approval=needs_approval, timeout=timeout
        )
        return self._with(registry=registry)

    def tools(self, *tools: Tool) -> AgentBuilder:
        """Register tools made with the ``@tool`` decorator."""
        registry = self.registry
        for t in tools:
            registry = registry.add(t)
        return self._with(registry=registry)

    def blacklist_tool(self, name: str) -> AgentBuilder:
        """Forbid the tool ``name`` (it is not offered, and a call to it is refused)."""
        return self._with(memory=self.memory.blacklist_tool(name))

    def approve_with(self, approver: Approver) -> AgentBuilder:
        """Ask ``approver`` about calls that need approval (instead of suspending)."""
        return self._with(approver=approver)

    def approve_with_async(self, approver: AsyncApprover) -> AgentBuilder:
        """Ask the coroutine ``approver`` about calls that need approval (for ``arun``)."""
        return self._with(async_approver=approver)

    def suspend_for_approval(self) -> AgentBuilder:
        """Suspend the run when a call needs approval (the default)."""
        return self._with(approver=None, async_approver=None)

    def approve_all_tools(self, enabled: bool = True) -> AgentBuilder:
        """Route every tool call through WaitingForHuman."""
        return self._config(approve_all_tools=enabled)

    def with_clock(self, clock: Clock) -> AgentBuilder:
        """Use ``clock`` for trace timestamps (e.g. a StepClock in tests)."""
        return self._with(clock=clock)

    def observe(self, observer: RunObserver | None) -> AgentBuilder:
        """Report every run to ``observer`` (OpenTelemetry: ``agentsm_fn.otel.OtelObserver``; None: off)."""
        return self._with(observer=observer)

    def build(self) -> Result[Agent, BuildError]:
        """Build with the default handlers; ``Failure(BuildError)`` lists every problem."""
        return self.build_with_handlers({})

    def build_with_handlers(
        self, handlers: Mapping[State, HandlerLike[Event, AgentMemory]]
    ) -> Result[Agent, BuildError]:
        """Build with some states' handlers replaced (advanced: custom states)."""
        problems: list[str] = []
        provider = self.provider
        if provider is None:
            problems.append("LLM caller is required (call .llm(provider))")
        elif sync_provider(provider) is None and async_provider(provider) is None:
            problems.append(f"{type(provider).__name__} has neither complete() nor acomplete()")
        problems.extend(_config_problems(self.memory.config))
        machine = REACT_MACHINE
        if handlers:
            try:
                machine = REACT_MACHINE.extend(handlers=handlers)
            except MachineDefinitionError as exc:
                problems.extend(exc.problems)
        if problems or provider is None:
            return Failure(BuildError("; ".join(problems)))
        memory = self.memory.with_tools(self.registry.definitions())
        return Success(
            Agent(
                memory=memory,
                machine=machine,
                registry=self.registry,
                llm=provider,
                approver=self.approver,
                async_approver=self.async_approver,
                clock=self.clock,
                observer=self.observer,
            )
        )
