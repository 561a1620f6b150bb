"""The ReAct agent, ready to run: the fluent :class:`AgentBuilder` and the :class:`Agent` it builds.

Every builder call returns a new builder, and configuration calls apply at once, so
the last call wins (the seed applied ``config()`` at build time, silently undoing an
earlier ``max_steps()``). ``build()`` returns ``Failure(BuildError)`` listing every
problem (no LLM, a handler for a terminal state, a negative limit...);
``build_with_handlers`` really replaces handlers (the seed's version ignored its
argument). :class:`Agent` (:mod:`agentsm_fn.shell.react_runnable`) runs the pure
machine of :mod:`agentsm_fn.agents.react`; a suspended run resumes with a human's
decision (it may come from JSON, written by another process).

The builder is typed by the run's result: ``AgentBuilder.new(task)`` is an
``AgentBuilder[str]`` (the answer's text), ``.result_type(Invoice)`` an
``AgentBuilder[Invoice]`` whose agent's runs give an ``Invoice`` (an attrs class, a
TypedDict, or a JSON Schema, whose values are frozen JSON objects), and
``.validate_result(check)`` adds an output validator of that type.

Guardrails (docs/results.md, "Guardrails"): ``.guard_input(g)`` checks the task (each new
message of a thread), ``.guard_tool_calls(g)`` each tool call before it runs,
``.guard_output(g)`` the result (of the builder's result type). An LLM guardrail made from
instructions (``llm_guardrail``) is data, kept in the memory; any other is code, run by the
agent's machine (``react_machine(result, guardrails)``).

One idea over 300 lines: the builder is one value, and its fluent methods are read together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Generic, Protocol, TypedDict, TypeVar, Unpack, cast, overload

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.guardrails import Guardrail
from agentsm_fn.agents.output.result_type import TEXT, ResultT, ResultType, Validator, result_type
from agentsm_fn.agents.react.acting import acting_with
from agentsm_fn.agents.react.agent_tools import InputFilter, agent_tool, handoff_tool
from agentsm_fn.agents.react.config import AgentConfig, TokenBudget
from agentsm_fn.agents.react.errors import BuildError
from agentsm_fn.agents.react.guards import INPUT, OUTPUT, TOOL_CALL, ReactGuardrails, each_call
from agentsm_fn.agents.react.machine import REACT_MACHINE, react_machine
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.machine import HandlerLike, MachineDefinitionError
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.llm.call import RESULT_TOOL, AnyLlmProvider
from agentsm_fn.llm.json import JsonObject
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.shell.clock import Clock
from agentsm_fn.shell.human import Approver, AsyncApprover
from agentsm_fn.shell.react_performers import async_provider, sync_provider
from agentsm_fn.shell.react_runnable import Agent
from agentsm_fn.teams.team import keep_everything
from agentsm_fn.tools.registry import Tool, ToolFn, ToolRegistry

__all__ = ["Agent", "AgentBuilder"]

T = TypeVar("T")


class Named(Protocol):
    """Anything with a program's name (a ``Durable``)."""

    @property
    def name(self) -> str:
        """The program's ``module:attribute`` name."""
        ...


def _child(**arguments: object) -> str:
    raise RuntimeError("an agent tool runs as a child run of the agent, never as a function")


class _BuilderChanges(TypedDict, total=False):
    memory: AgentMemory
    registry: ToolRegistry
    provider: AnyLlmProvider | None
    approver: Approver | None
    async_approver: AsyncApprover | None
    clock: Clock | None
    observer: RunObserver | None
    filters: tuple[tuple[str, InputFilter], ...]


@attrs.frozen(kw_only=True, slots=False)  # not slotted: _with copies one dict
class AgentBuilder(Generic[ResultT]):
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
    output: ResultType[ResultT]
    guards: ReactGuardrails[ResultT] = attrs.field(factory=ReactGuardrails)
    registry: ToolRegistry = attrs.field(factory=ToolRegistry)
    provider: AnyLlmProvider | None = None
    approver: Approver | None = None
    async_approver: AsyncApprover | None = None
    clock: Clock | None = None
    observer: RunObserver | None = None
    filters: tuple[tuple[str, InputFilter], ...] = ()
    """The input filters of handoffs that do not show everything, by tool name."""

    @staticmethod
    def new(task: str) -> AgentBuilder[str]:
        """A builder for ``task`` with the seed's defaults (its runs' result is the answer's text)."""
        return AgentBuilder[str](memory=AgentMemory.new(task), output=TEXT)

    def _with(self, **changes: Unpack[_BuilderChanges]) -> AgentBuilder[ResultT]:
        """A copy with ``changes`` (``attrs.evolve`` as one dict copy: a builder is copied per call)."""
        new: AgentBuilder[ResultT] = object.__new__(AgentBuilder)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    @overload
    def result_type(self, kind: ResultType[T]) -> AgentBuilder[T]: ...

    @overload
    def result_type(self, kind: type[T]) -> AgentBuilder[T]: ...

    @overload
    def result_type(self, kind: Mapping[str, object]) -> AgentBuilder[JsonObject]: ...

    def result_type(
        self, kind: ResultType[T] | type[T] | Mapping[str, object]
    ) -> AgentBuilder[T] | AgentBuilder[JsonObject]:
        """Ask for a typed result: an attrs class, a TypedDict, a JSON Schema, or a :class:`ResultType`.

        The run's ``result`` is then a value of that type (a JSON Schema's: a frozen JSON
        object), asked of the provider as its codec does best (docs/results.md), and a reply
        that is not one is sent back with its problems, ``config.max_output_retries`` times.
        Output validators given before are dropped (they were of the old type).

        Example:
            >>> import attrs
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> from agentsm_fn.llm.replies import LlmReply
            >>> @attrs.frozen(kw_only=True)
            ... class Total:
            ...     amount: float
            ...     currency: str
            >>> reply = LlmReply(content='{"amount": 6, "currency": "EUR"}')
            >>> builder = AgentBuilder.new("2 x 3 EUR?").result_type(Total).llm(ScriptedLlm([reply]))
            >>> agent = builder.build().unwrap()
            >>> agent.run().unwrap().result
            Total(amount=6.0, currency='EUR')
        """
        output = kind if isinstance(kind, ResultType) else result_type(kind)
        new: AgentBuilder[T] | AgentBuilder[JsonObject] = object.__new__(AgentBuilder)
        new.__dict__.update(self.__dict__)
        guards = attrs.evolve(self.guards, output=())  # output guardrails were of the old type
        new.__dict__.update(output=output, memory=self.memory.evolve(output=output.spec), guards=guards)
        return new

    def validate_result(self, *validators: Validator[ResultT]) -> AgentBuilder[ResultT]:
        """Add output validators: pure ``value -> Result[value, str]``, run after the schema, in order.

        A validator's failure is sent back to the model like a schema's problem (and
        counts against ``config.max_output_retries``); its success may change the value.

        Example:
            >>> from returns.result import Failure, Success
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> from agentsm_fn.llm.replies import LlmReply
            >>> replies = [LlmReply(content="it is paris, surely"), LlmReply(content="It is Paris, surely.")]
            >>> agent = (AgentBuilder.new("Capital of France?").llm(ScriptedLlm(replies))
            ...          .validate_result(lambda t: Success(t) if t[0].isupper() else Failure("capitalise"))
            ...          .build().unwrap())
            >>> agent.run().unwrap().result
            'It is Paris, surely.'
        """
        new = self._with()
        new.__dict__.update(output=self.output.validated_by(*validators))
        return new

    def _guarded(self, stage: str, guardrails: tuple[Guardrail[object], ...]) -> AgentBuilder[ResultT]:
        held = [attrs.evolve(g.spec, stage=stage) for g in guardrails if g.spec is not None]
        code = tuple(g for g in guardrails if g.spec is None)
        new = self._with(memory=self.memory.evolve(guardrails=(*self.memory.guardrails, *held)))
        if code:
            field = {INPUT: "input", TOOL_CALL: "tool_calls", OUTPUT: "output"}[stage]
            guards = attrs.evolve(self.guards, **{field: (*getattr(self.guards, field), *code)})
            new.__dict__.update(guards=guards)
        return new

    def guard_input(self, *guardrails: Guardrail[str]) -> AgentBuilder[ResultT]:
        """Check the task (each new message of a thread) before planning: a trip refuses, asks or stops.

        Example:
            >>> from agentsm_fn.agents.guardrails import guardrail
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> own = guardrail("own-invoices", lambda t: "another customer's" if "ACME" in t else None,
            ...                 message="I can only show you your own invoices.")
            >>> agent = AgentBuilder.new("Show ACME's invoices").guard_input(own).llm(ScriptedLlm([])).build()
            >>> agent.unwrap().run().failure().message
            'I can only show you your own invoices.'
        """
        return self._guarded(INPUT, cast(tuple[Guardrail[object], ...], guardrails))

    def guard_tool_calls(self, *guardrails: Guardrail[ToolCall]) -> AgentBuilder[ResultT]:
        """Check each tool call before it runs (a trip refuses the turn's calls, asks a human, or stops).

        A pure check sees one call (it trips on the turn when it trips on any of its calls);
        an LLM guardrail (``llm_guardrail``) judges the turn's calls together.
        """
        lifted = tuple(g if g.spec is not None else each_call(g) for g in guardrails)
        return self._guarded(TOOL_CALL, cast(tuple[Guardrail[object], ...], lifted))

    def guard_output(self, *guardrails: Guardrail[ResultT]) -> AgentBuilder[ResultT]:
        """Check the result (the text, or the typed value) before the run ends in Done.

        Give them after ``result_type`` (which drops the ones given before: they were of the
        old type).
        """
        return self._guarded(OUTPUT, cast(tuple[Guardrail[object], ...], guardrails))

    def _memory(self, **changes: object) -> AgentBuilder[ResultT]:
        return self._with(memory=attrs.evolve(self.memory, **changes))  # type: ignore[arg-type]  # field names and types are checked by attrs at run time

    def task(self, task: str) -> AgentBuilder[ResultT]:
        """Replace the task."""
        return self._memory(task=task)

    def task_type(self, task_type: str) -> AgentBuilder[ResultT]:
        """Set the task type, the key of model routing ("default" by default)."""
        return self._memory(task_type=task_type)

    def system_prompt(self, prompt: str) -> AgentBuilder[ResultT]:
        """Set the system prompt sent with every planning call."""
        return self._memory(system_prompt=prompt)

    def llm(self, provider: AnyLlmProvider) -> AgentBuilder[ResultT]:
        """Set the LLM provider (required): anything with ``complete`` and/or ``acomplete``."""
        return self._with(provider=provider)

    def config(self, config: AgentConfig) -> AgentBuilder[ResultT]:
        """Replace the whole configuration (and the token budget with it)."""
        return self._with(memory=self.memory.with_config(config))

    def _config(self, **changes: object) -> AgentBuilder[ResultT]:
        return self.config(attrs.evolve(self.memory.config, **changes))  # type: ignore[arg-type]  # as in _memory

    def max_steps(self, n: int) -> AgentBuilder[ResultT]:
        """Set ``config.max_steps`` only."""
        return self._config(max_steps=n)

    def model(self, model: str) -> AgentBuilder[ResultT]:
        """Set the "default" model."""
        return self.model_for("default", model)

    def model_for(self, task_type: str, model: str) -> AgentBuilder[ResultT]:
        """Route ``task_type`` to ``model``."""
        return self.config(self.memory.config.with_model(task_type, model))

    def budget(self, budget: TokenBudget | None) -> AgentBuilder[ResultT]:
        """Limit the run's tokens (input, output, total)."""
        return self._config(budget=budget)

    def parallel_tools(self, enabled: bool = True) -> AgentBuilder[ResultT]:
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
    ) -> AgentBuilder[ResultT]:
        """Register a tool by name, description, JSON Schema and function."""
        registry = self.registry.register(
            name, description, schema, fn, needs_approval=needs_approval, timeout=timeout
        )
        return self._with(registry=registry)

    def tools(self, *tools: Tool) -> AgentBuilder[ResultT]:
        """Register tools made with the ``@tool`` decorator."""
        registry = self.registry
        for t in tools:
            registry = registry.add(t)
        return self._with(registry=registry)

    def agent_tool(self, name: str, description: str, agent: str | Named) -> AgentBuilder[ResultT]:
        """Offer the durable ``agent`` (a ``Durable``, or its ``module:attribute`` name) as the tool ``name``.

        A call runs the agent as a child run (a new turn of it, the call's ``input`` as its
        message); its final answer (or typed result, as JSON) is the call's observation, and a
        failed or cancelled child an error observation (docs/teams.md). Run the agent as a
        ``Durable`` (in process, or on a store whose workers load the child by its name).

        Example:
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> b = AgentBuilder.new("Refund A-17").agent_tool("ask_refunds", "Refunds", "shop:REFUNDS")
            >>> b.llm(ScriptedLlm([])).build().unwrap().memory.tool("ask_refunds").agent
            'shop:REFUNDS'
        """
        program = agent if isinstance(agent, str) else agent.name
        return self._with(registry=self.registry.add(Tool(agent_tool(name, description, program), _child)))

    def handoff(
        self,
        agent: str | Named,
        *,
        target: str | None = None,
        description: str = "",
        input_filter: InputFilter = keep_everything,
    ) -> AgentBuilder[ResultT]:
        """Offer ``transfer_to_<target>``: a call hands the conversation to the durable ``agent``.

        The receiving agent runs as a child run, from what ``input_filter`` keeps of the earlier
        turns and the user's message; its answer is this run's answer (``Acting --HandedOff-->
        Done``). ``target`` defaults to the agent's attribute name, lower case.

        Example:
            >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
            >>> b = AgentBuilder.new("Refund A-17").handoff("shop:REFUNDS", input_filter=lambda ms: ms[-1:])
            >>> agent = b.llm(ScriptedLlm([])).build().unwrap()
            >>> acting = agent.machine.handlers[State.Acting].functions[0]
            >>> agent.memory.tool("transfer_to_refunds").hands_off, acting.__name__
            (True, 'act_filtered')
        """
        program = agent if isinstance(agent, str) else agent.name
        name = target or program.rpartition(":")[2].lower()
        definition = handoff_tool(name, description, program)
        new = self._with(registry=self.registry.add(Tool(definition, _child)))
        if input_filter is not keep_everything:
            new.__dict__.update(filters=(*self.filters, (definition.name, input_filter)))
        return new

    def blacklist_tool(self, name: str) -> AgentBuilder[ResultT]:
        """Forbid the tool ``name`` (it is not offered, and a call to it is refused)."""
        return self._with(memory=self.memory.blacklist_tool(name))

    def approve_with(self, approver: Approver) -> AgentBuilder[ResultT]:
        """Ask ``approver`` about calls that need approval (instead of suspending)."""
        return self._with(approver=approver)

    def approve_with_async(self, approver: AsyncApprover) -> AgentBuilder[ResultT]:
        """Ask the coroutine ``approver`` about calls that need approval (for ``arun``)."""
        return self._with(async_approver=approver)

    def suspend_for_approval(self) -> AgentBuilder[ResultT]:
        """Suspend the run when a call needs approval (the default)."""
        return self._with(approver=None, async_approver=None)

    def approve_all_tools(self, enabled: bool = True) -> AgentBuilder[ResultT]:
        """Route every tool call through WaitingForHuman."""
        return self._config(approve_all_tools=enabled)

    def with_clock(self, clock: Clock) -> AgentBuilder[ResultT]:
        """Use ``clock`` for trace timestamps (e.g. a StepClock in tests)."""
        return self._with(clock=clock)

    def observe(self, observer: RunObserver | None) -> AgentBuilder[ResultT]:
        """Report every run to ``observer`` (OpenTelemetry: ``agentsm_fn.otel.OtelObserver``; None: off)."""
        return self._with(observer=observer)

    def build(self) -> Result[Agent[ResultT], BuildError]:
        """Build with the default handlers; ``Failure(BuildError)`` lists every problem."""
        return self.build_with_handlers({})

    def build_with_handlers(
        self, handlers: Mapping[State, HandlerLike[Event, AgentMemory]]
    ) -> Result[Agent[ResultT], BuildError]:
        """Build with some states' handlers replaced (advanced: custom states)."""
        problems: list[str] = []
        provider = self.provider
        if provider is None:
            problems.append("LLM caller is required (call .llm(provider))")
        elif sync_provider(provider) is None and async_provider(provider) is None:
            problems.append(f"{type(provider).__name__} has neither complete() nor acomplete()")
        problems.extend(self.memory.config.problems())
        if self.output.spec is not None and any(t.name == RESULT_TOOL for t in self.registry):
            problems.append(
                f"a tool may not be called {RESULT_TOOL!r} with a typed result (a provider offers it)"
            )
        typed = self.output.spec is not None or self.output.validators
        machine = react_machine(self.output, self.guards) if typed or self.guards.stages else REACT_MACHINE
        if self.filters:
            machine = machine.extend(handlers={State.Acting: acting_with(dict(self.filters))})
        if handlers:
            try:
                machine = machine.extend(handlers=handlers)
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
                output=self.output,
                approver=self.approver,
                async_approver=self.async_approver,
                clock=self.clock,
                observer=self.observer,
            )
        )
