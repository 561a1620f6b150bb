"""The plan-and-execute agent, ready to run: the ``AgentFSM`` facade and its performers.

The pure machine (``agentsm_fn.agents.plan_execute``) asks for three effects:
``LlmCall`` (sent to your provider), ``RunTools`` (your Python functions, run by
:mod:`agentsm_fn.shell.tool_batches`) and ``ReadClock`` (the shell's clock, for the
time limit). :func:`plan_execute_performers` builds the performers; :class:`AgentFSM`
wires them with a config and runs the machine, sync or async. Tools are plain
functions, ``agentsm_fn.tools.Tool`` values or a ``ToolRegistry``
(:mod:`agentsm_fn.shell.tool_functions` reads their specs and timeouts).

The facade is typed by the run's result, as the ReAct agent's builder is: ``AgentFSM(...)``
is an ``AgentFSM[str]`` (the answer's text), ``.result_type(Invoice)`` an
``AgentFSM[Invoice]`` whose runs give an ``Invoice`` as ``PlanExecuteCompleted.value`` (an
attrs class, a TypedDict, or a JSON Schema), and ``.validate_result(check)`` adds an output
validator of that type (docs/results.md, "The plan-and-execute agent's typed result").
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Iterable, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar, cast, overload

import attrs

from agentsm_fn.agents.output.result_type import TEXT, ResultT, ResultType, Validator, result_type
from agentsm_fn.agents.plan_execute import (
    DeciderConfig,
    Event,
    ExecutorConfig,
    FinalizerConfig,
    PlanExecuteConfig,
    PlanExecuteMemory,
    PlanExecuteOutcome,
    PlanExecutePolicy,
    PlannerConfig,
    ReadClock,
    RunTools,
    State,
    StepChild,
    ToolBatch,
    interpret_plan_execute,
    plan_execute_machine,
)
from agentsm_fn.core.engine import begin
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm.call import RESULT_TOOL, AnyLlmProvider
from agentsm_fn.llm.json import JsonObject
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

T = TypeVar("T")

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


def _children(value: Iterable[StepChild]) -> tuple[StepChild, ...]:
    return tuple(value)


def _optional_specs(value: Iterable[ToolSpec] | None) -> tuple[ToolSpec, ...] | None:
    return None if value is None else tuple(value)


def _text() -> ResultType[str]:
    return TEXT


@attrs.frozen(kw_only=True)
class AgentFSM(Generic[ResultT]):
    """The seed's ``AgentFSM``: build with a provider, tools, planner, policy, max_iterations; run.

    ``run`` returns ``Success(PlanExecuteCompleted)`` (``result.done`` is True, ``value`` the
    typed result, ``fsm`` the run to inspect) or ``Failure`` of :data:`PlanExecuteError`:
    ``ExecutionError``, ``MaxIterationsExceeded`` or ``EngineFailed``, each with its ``fsm``,
    or, with a result type, ``OutputInvalidError`` (the last invalid answer and its snapshot).
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
    output: ResultType[ResultT] = attrs.field(factory=_text)
    """The result type (text by default): set it with :meth:`result_type` to type the facade."""
    step_agents: tuple[StepChild, ...] = attrs.field(default=(), converter=_children)
    """Durable agents a plan step may name (``step_agent(...)``), each step run as a child run."""
    children: Performers = attrs.field(factory=Performers)
    """Performers of those child runs with no store (``in_process_children(...)``); a ``Durable`` runs
    them itself."""

    def __attrs_post_init__(self) -> None:
        if type(self.max_iterations) is not int or self.max_iterations < 0:
            raise ValueError(f"max_iterations must be an int >= 0, got {self.max_iterations!r}")
        config = self.config  # a bad planner, tool or finish-tool setup fails here, not mid-run
        if self.output.spec is not None and any(t.name == RESULT_TOOL for t in config.tools):
            raise ValueError(
                f"a tool may not be called {RESULT_TOOL!r} with a typed result (a provider offers it)"
            )

    @overload
    def result_type(self, kind: ResultType[T]) -> AgentFSM[T]: ...

    @overload
    def result_type(self, kind: type[T]) -> AgentFSM[T]: ...

    @overload
    def result_type(self, kind: Mapping[str, object]) -> AgentFSM[JsonObject]: ...

    def result_type(
        self, kind: ResultType[T] | type[T] | Mapping[str, object]
    ) -> AgentFSM[T] | AgentFSM[JsonObject]:
        """Ask for a typed result: an attrs class, a TypedDict, a JSON Schema, or a :class:`ResultType`.

        The executor's and the summary's calls then ask the provider for it (its codec's way,
        docs/results.md), a run's ``value`` is of that type, and an answer that is not one goes
        back to the model with its problems (CORRECTING), ``finalizer.max_output_retries``
        times, then the run halts with ``OutputInvalidError``. Output validators given before
        are dropped (they were of the old type).

        Example:
            >>> import attrs
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> from agentsm_fn.llm.replies import LlmReply
            >>> @attrs.frozen(kw_only=True)
            ... class Total:
            ...     amount: float
            ...     currency: str
            >>> plan = LlmReply(content='{"goal": "add", "initial_steps": ["add"]}')
            >>> llm = ScriptedLlm([plan, LlmReply(content='{"amount": 6, "currency": "EUR"}')])
            >>> AgentFSM(provider=llm).result_type(Total).run("2 x 3 EUR?").unwrap().value
            Total(amount=6.0, currency='EUR')
        """
        output = cast(ResultType[T], kind if isinstance(kind, ResultType) else result_type(kind))
        return attrs.evolve(cast("AgentFSM[T]", self), output=output)

    def validate_result(self, *validators: Validator[ResultT]) -> AgentFSM[ResultT]:
        """Add output validators: pure ``value -> Result[value, str]``, run after the schema, in order.

        A validator's failure goes back to the model like a schema's problem (and counts
        against ``finalizer.max_output_retries``); its success may change the value.

        Example:
            >>> from returns.result import Failure, Success
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> from agentsm_fn.llm.replies import LlmReply
            >>> plan = LlmReply(content='{"goal": "answer", "initial_steps": ["answer"]}')
            >>> llm = ScriptedLlm([plan, LlmReply(content="it is paris"), LlmReply(content="It is Paris.")])
            >>> agent = AgentFSM(provider=llm).validate_result(
            ...     lambda t: Success(t) if t[0].isupper() else Failure("capitalise"))
            >>> agent.run("Capital of France?").unwrap().value
            'It is Paris.'
        """
        return attrs.evolve(self, output=self.output.validated_by(*validators))

    @property
    def machine(self) -> Machine[State, Event, PlanExecuteMemory]:
        """The machine this agent runs (:func:`plan_execute_machine` of its result type and step agents)."""
        return plan_execute_machine(self.output, steps=self.step_agents)

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
            step_agents=tuple(child.agent for child in self.step_agents),
        )

    def memory(self, initial_input: str) -> PlanExecuteMemory:
        """The start memory of a run on ``initial_input``."""
        return PlanExecuteMemory(
            input=initial_input,
            config=self.config,
            max_iterations=self.max_iterations,
            output=self.output.spec,
        )

    def start(self, initial_input: str) -> Snapshot[State, PlanExecuteMemory]:
        """The start snapshot of a run (replay a finished run's journal from it)."""
        return begin(self.machine, self.memory(initial_input))

    def shell(self) -> Shell:
        """The shell that performs this agent's effects."""
        functions = tool_registry(self.tools)[0]
        performers = plan_execute_performers(
            self.provider, functions, self.config.tools, self.clock, tool_timeouts(self.tools)
        )
        return Shell(performers.merge(self.children), self.clock, self.observer)

    def run(self, initial_input: str) -> PlanExecuteOutcome[ResultT]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (synchronous)."""
        return interpret_plan_execute(run(self.machine, self.start(initial_input), self.shell()), self.output)

    async def arun(self, initial_input: str) -> PlanExecuteOutcome[ResultT]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (asyncio)."""
        finished = await arun(self.machine, self.start(initial_input), self.shell())
        return interpret_plan_execute(finished, self.output)

    def astream(self, initial_input: str, buffer: int = BUFFER_SIZE) -> AsyncGenerator[RunEvent, None]:
        """:meth:`arun` as a stream of its events (:func:`~agentsm_fn.shell.astream`).

        The last event (``Finished`` or ``Failed``) carries what :meth:`arun` returns as
        its ``result``.
        """
        output = self.output
        return astream(
            self.machine,
            self.start(initial_input),
            self.shell(),
            buffer=buffer,
            result=lambda finished: interpret_plan_execute(finished, output),
        )
