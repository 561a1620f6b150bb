"""The plan-and-execute agent, ready to run: the ``AgentFSM`` facade and its performers.

The pure machine (``agentsm_fn.agents.plan_execute``) asks for three effects:
``LlmCall`` (sent to your provider), ``RunTools`` (your Python functions, run by
:mod:`agentsm_fn.shell.tool_batches`) and ``ReadClock`` (the shell's clock, for the
time limit). :func:`plan_execute_performers` builds the performers; :class:`AgentFSM`
wires them with a config and runs the machine, sync or async. Tools are plain
functions, ``agentsm_fn.tools.Tool`` values or a ``ToolRegistry``
(:mod:`agentsm_fn.shell.tool_functions` reads their specs and timeouts).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable, Mapping
from types import MappingProxyType

import attrs
from returns.result import Result

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    DeciderConfig,
    ExecutorConfig,
    FinalizerConfig,
    PlanExecuteCompleted,
    PlanExecuteConfig,
    PlanExecuteError,
    PlanExecuteMemory,
    PlanExecutePolicy,
    PlannerConfig,
    ReadClock,
    RunTools,
    State,
    ToolBatch,
    interpret_plan_execute,
)
from agentsm_fn.core.engine import begin
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm.call import AnyLlmProvider
from agentsm_fn.llm.messages import ToolSpec
from agentsm_fn.shell.clock import Clock, system_clock
from agentsm_fn.shell.performers import Performers
from agentsm_fn.shell.react_performers import llm_performers
from agentsm_fn.shell.run import Shell, arun, run
from agentsm_fn.shell.streaming import BUFFER_SIZE, astream
from agentsm_fn.shell.tool_batches import run_tool_calls, run_tool_calls_async
from agentsm_fn.shell.tool_functions import retry_safe_tools, tool_registry, tool_timeouts
from agentsm_fn.stream.events import RunEvent
from agentsm_fn.tools.registry import Tool, ToolFn, ToolRegistry

__all__ = ["AgentFSM", "plan_execute_performers"]

_NO_TIMEOUTS: Mapping[str, float | None] = MappingProxyType({})


def plan_execute_performers(
    provider: AnyLlmProvider,
    tools: Mapping[str, ToolFn],
    specs: Iterable[ToolSpec] = (),
    clock: Clock = system_clock,
    timeouts: Mapping[str, float | None] = _NO_TIMEOUTS,
) -> Performers:
    """Performers for the agent's three effects: LLM calls, tool runs and clock readings.

    ``timeouts`` gives tools a time limit in seconds (see :func:`tool_timeouts`).

    Example:
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> class Echo:
        ...     def complete(self, request):
        ...         return LlmReply(content="hi")
        >>> p = plan_execute_performers(Echo(), {}, clock=lambda: 5)
        >>> p.find(ReadClock())(ReadClock())
        5.0
    """
    by_name = MappingProxyType({spec.name: spec for spec in specs})
    performers = Performers().on(ReadClock, lambda _effect: float(clock()))
    performers = performers.on(RunTools, lambda effect: run_tool_calls(tools, by_name, effect, timeouts))

    async def tools_async(effect: RunTools) -> ToolBatch:
        return await run_tool_calls_async(tools, by_name, effect, timeouts)

    return performers.on_async(RunTools, tools_async).merge(llm_performers(provider))


def _freeze_tools(
    value: Mapping[str, ToolFn | Tool] | ToolRegistry,
) -> Mapping[str, ToolFn | Tool] | ToolRegistry:
    return value if isinstance(value, ToolRegistry) else MappingProxyType(dict(value))


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _optional_specs(value: Iterable[ToolSpec] | None) -> tuple[ToolSpec, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class AgentFSM:
    """The seed's ``AgentFSM``: build with a provider, tools, planner, policy, max_iterations; run.

    ``run`` returns ``Success(PlanExecuteCompleted)`` (``result.done`` is True, ``fsm`` is the
    run to inspect) or ``Failure`` of :data:`PlanExecuteError`: ``ExecutionError``,
    ``MaxIterationsExceeded`` or ``EngineFailed``, each with its ``fsm``.
    ``tools`` maps names to functions (the seed's registry) or ``agentsm_fn.tools.Tool``
    values, or is a ``ToolRegistry``; the specs the model sees are read from them
    unless ``tool_specs`` is given.

    Example:
        >>> from agentsm_fn.llm.replies import LlmReply
        >>> class Planner:
        ...     def complete(self, request):
        ...         if request.response_schema is not None:
        ...             return LlmReply(content='{"goal": "greet", "initial_steps": ["say hi"]}')
        ...         return LlmReply(content="Hello!")
        >>> done = AgentFSM(provider=Planner()).run("Say hello").unwrap()
        >>> done.result.done, done.result.answer, done.fsm.state_name
        (True, 'Hello!', 'FINALIZE')
    """

    provider: AnyLlmProvider
    tools: Mapping[str, ToolFn | Tool] | ToolRegistry = attrs.field(factory=dict, converter=_freeze_tools)
    tool_specs: tuple[ToolSpec, ...] | None = attrs.field(default=None, converter=_optional_specs)
    planner: PlannerConfig = attrs.field(factory=PlannerConfig)
    decider: DeciderConfig = attrs.field(factory=DeciderConfig)
    executor: ExecutorConfig = attrs.field(factory=ExecutorConfig)
    finalizer: FinalizerConfig = attrs.field(factory=FinalizerConfig)
    policy: PlanExecutePolicy = attrs.field(factory=PlanExecutePolicy)
    max_iterations: int = 20
    finish_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    model: str = ""
    clock: Clock = system_clock
    observer: RunObserver | None = None

    def __attrs_post_init__(self) -> None:
        if type(self.max_iterations) is not int or self.max_iterations < 0:
            raise ValueError(f"max_iterations must be an int >= 0, got {self.max_iterations!r}")
        _ = self.config  # a bad planner, tool or finish-tool setup fails here, not mid-run

    @property
    def config(self) -> PlanExecuteConfig:
        """The configuration the handlers read (validated when built)."""
        specs = self.tool_specs
        if specs is None:
            specs = tool_registry(self.tools)[1]
        return PlanExecuteConfig(
            planner=self.planner,
            decider=self.decider,
            executor=self.executor,
            finalizer=self.finalizer,
            policy=self.policy,
            tools=specs,
            finish_tools=self.finish_tools,
            model=self.model,
            retry_safe_tools=retry_safe_tools(self.tools),
        )

    def memory(self, initial_input: str) -> PlanExecuteMemory:
        """The start memory of a run on ``initial_input``."""
        return PlanExecuteMemory(input=initial_input, config=self.config, max_iterations=self.max_iterations)

    def start(self, initial_input: str) -> Snapshot[State, PlanExecuteMemory]:
        """The start snapshot of a run (replay a finished run's journal from it)."""
        return begin(PLAN_EXECUTE_MACHINE, self.memory(initial_input))

    def shell(self) -> Shell:
        """The shell that performs this agent's effects."""
        functions = tool_registry(self.tools)[0]
        performers = plan_execute_performers(
            self.provider, functions, self.config.tools, self.clock, tool_timeouts(self.tools)
        )
        return Shell(performers, self.clock, self.observer)

    def run(self, initial_input: str) -> Result[PlanExecuteCompleted, PlanExecuteError]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (synchronous)."""
        return interpret_plan_execute(run(PLAN_EXECUTE_MACHINE, self.start(initial_input), self.shell()))

    async def arun(self, initial_input: str) -> Result[PlanExecuteCompleted, PlanExecuteError]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (asyncio)."""
        return interpret_plan_execute(
            await arun(PLAN_EXECUTE_MACHINE, self.start(initial_input), self.shell())
        )

    def astream(self, initial_input: str, buffer: int = BUFFER_SIZE) -> AsyncGenerator[RunEvent, None]:
        """:meth:`arun` as a stream of its events (:func:`~agentsm_fn.shell.astream`).

        The last event (``Finished`` or ``Failed``) carries what :meth:`arun` returns as
        its ``result``.
        """
        return astream(
            PLAN_EXECUTE_MACHINE,
            self.start(initial_input),
            self.shell(),
            buffer=buffer,
            result=interpret_plan_execute,
        )
