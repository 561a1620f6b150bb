"""Running the plan-and-execute agent: tool and clock performers, and the ``AgentFSM`` facade.

The pure machine (``agentsm_fn.agents.plan_execute``) asks for three effects:
``LlmCall`` (sent to your provider), ``RunTools`` (your Python functions, run here
and nowhere else) and ``ReadClock`` (the shell's clock, for the time limit).
:func:`plan_execute_performers` builds the performers; :class:`AgentFSM` wires
them with a config and runs the machine, sync or async.

A tool is a function taking keyword arguments (the seed's ``->(query:) { ... }``)
and returning text, any JSON-serializable value, or ``Success(value)`` /
``Failure(message)``; ``agentsm_fn.tools.Tool`` values and a ``ToolRegistry`` work
too. A tool never breaks the run: an exception, bad arguments or an unknown name
become an error result, which the policy turns into a halt
(``halt_on_tool_error``, the default) or shows the model.

Tools run on the shell's one tool runner (:mod:`agentsm_fn.shell.tools`), as the ReAct
agent's do: a ``Tool``'s ``ToolDef.timeout`` is honoured (a tool that hangs becomes a
"timed out" error result). Under ``arun``, as under ``run``, a batch's sync tools run
one after another in call order, on the event loop's thread (thread-bound objects such
as a sqlite3 connection, ContextVars and the running loop all work), except a sync tool
with a timeout: it runs in a thread (in a copy of the caller's context), the only way to
stop waiting for it, and it cannot use the running loop. A batch's async tools run
concurrently; the results always come back in call order.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from types import MappingProxyType
from typing import get_type_hints

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.plan_execute import (
    PLAN_EXECUTE_MACHINE,
    AgentError,
    Completed,
    DeciderConfig,
    ExecutorConfig,
    FinalizerConfig,
    PlanExecuteConfig,
    PlanExecuteMemory,
    PlannerConfig,
    Policy,
    ReadClock,
    RunTools,
    State,
    ToolBatch,
    ToolResult,
    interpret,
)
from agentsm_fn.agents.plan_execute.structured import schema_errors
from agentsm_fn.core.engine import begin
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.llm.call import AsyncLlmProvider, LlmCall, LlmProvider
from agentsm_fn.llm.json import JsonValue, thaw
from agentsm_fn.llm.messages import ToolCall, ToolSpec
from agentsm_fn.llm.replies import LlmOutcome
from agentsm_fn.shell.clock import Clock, system_clock
from agentsm_fn.shell.performers import Performers
from agentsm_fn.shell.run import Shell, arun, run
from agentsm_fn.shell.tools import CallOutcome, Raised, Returned, acall_tool, call_tool
from agentsm_fn.tools.decorator import schema_for
from agentsm_fn.tools.registry import Tool, ToolRegistry

__all__ = [
    "AgentFSM",
    "ToolFunction",
    "plan_execute_performers",
    "run_tool_calls",
    "run_tool_calls_async",
    "tool_registry",
    "tool_spec",
    "tool_text",
    "tool_timeouts",
]

ToolFunction = Callable[..., object]
"""A tool: keyword arguments in; text, a JSON-serializable value or an awaitable of one out."""

_JSON_TYPES: Mapping[object, str] = MappingProxyType(
    {str: "string", int: "integer", float: "number", bool: "boolean", list: "array", dict: "object"}
)


def _lenient_schema(fn: ToolFunction) -> dict[str, JsonValue]:
    try:
        hints = get_type_hints(fn)
    except Exception:  # unresolvable annotations: fall back to untyped parameters
        hints = {}
    properties: dict[str, JsonValue] = {}
    required: list[JsonValue] = []
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature: any object will do
        return {"type": "object"}
    for param in parameters:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD, param.POSITIONAL_ONLY):
            continue
        kind = _JSON_TYPES.get(hints.get(param.name))
        properties[param.name] = {"type": kind} if kind else {}
        if param.default is param.empty:
            required.append(param.name)
    return {"type": "object", "properties": properties, "required": required}


def tool_spec(name: str, fn: ToolFunction) -> ToolSpec:
    """The spec the model sees, read from the function's signature and docstring.

    Typed functions get the ``@tool`` decorator's schema (``agentsm_fn.tools``);
    untyped ones (a lambda, say) get one property per keyword parameter.

    Example:
        >>> def search(query: str, limit: int = 5) -> str:
        ...     '''Search the web.'''
        ...     return query
        >>> spec = tool_spec("search", search)
        >>> spec.description, dict(spec.parameters["properties"]["limit"]), list(spec.parameters["required"])
        ('Search the web.', {'type': 'integer'}, ['query'])
        >>> list(tool_spec("read", lambda url: url).parameters["required"])
        ['url']
        >>> len(tool_spec("size", len).parameters["properties"])  # positional-only: nothing to offer
        0
    """
    try:
        description, schema = schema_for(fn)
    except (TypeError, NameError, ValueError):
        description, schema = "", _lenient_schema(fn)
    return ToolSpec(name, description or f"The {name} tool.", schema)


def tool_registry(
    tools: Mapping[str, ToolFunction | Tool] | ToolRegistry,
) -> tuple[Mapping[str, ToolFunction], tuple[ToolSpec, ...]]:
    """Functions by name and the specs the model sees, from plain functions, ``Tool`` values or a registry.

    Example:
        >>> fns, specs = tool_registry({"search": lambda query: query})
        >>> list(fns), specs[0].name
        (['search'], 'search')
    """
    entries = [(t.name, t) for t in tools] if isinstance(tools, ToolRegistry) else list(tools.items())
    functions: dict[str, ToolFunction] = {}
    specs: list[ToolSpec] = []
    for name, entry in entries:
        if isinstance(entry, Tool):
            functions[name] = entry.fn
            definition = entry.definition.spec
            specs.append(ToolSpec(name, definition.description, definition.parameters))
        else:
            functions[name] = entry
            specs.append(tool_spec(name, entry))
    return MappingProxyType(functions), tuple(specs)


def tool_text(value: object) -> str:
    """A tool's return value as the text the model reads (JSON for structured values).

    Example:
        >>> tool_text({"results": "Search results for: pdf"}), tool_text("plain"), tool_text(None)
        ('{"results": "Search results for: pdf"}', 'plain', '')
    """
    if value is None:
        return ""
    if isinstance(value, Success):
        return tool_text(value.unwrap())
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _error(call: ToolCall, message: str) -> ToolResult:
    return ToolResult(call_id=call.id, name=call.name, content=message, is_error=True)


def _prepare(
    tools: Mapping[str, ToolFunction], specs: Mapping[str, ToolSpec], call: ToolCall
) -> ToolResult | tuple[ToolFunction, dict[str, object]]:
    fn = tools.get(call.name)
    if fn is None:
        return _error(call, f"unknown tool {call.name!r}; available: {sorted(tools)}")
    spec = specs.get(call.name)
    problems = schema_errors(call.arguments, spec.parameters) if spec is not None else ()
    if problems:
        return _error(call, f"invalid arguments for {call.name}: {'; '.join(problems)}")
    arguments = thaw(call.arguments)
    return fn, dict(arguments) if isinstance(arguments, dict) else {}


def _result(call: ToolCall, value: object) -> ToolResult:
    if isinstance(value, Failure):
        return _error(call, f"{call.name} failed: {value.failure()}")
    return ToolResult(call_id=call.id, name=call.name, content=tool_text(value))


def _raised(call: ToolCall, exc: BaseException) -> ToolResult:
    return _error(call, f"{call.name} raised {type(exc).__name__}: {exc}"[:2000])


def _outcome(call: ToolCall, outcome: CallOutcome) -> ToolResult:
    if isinstance(outcome, Returned):
        return _result(call, outcome.value)
    if isinstance(outcome, Raised):
        return _raised(call, outcome.error)
    return _error(call, f"{call.name} timed out: no result within {outcome.seconds}s")


_NO_TIMEOUTS: Mapping[str, float | None] = MappingProxyType({})


def run_tool_calls(
    tools: Mapping[str, ToolFunction],
    specs: Mapping[str, ToolSpec],
    effect: RunTools,
    timeouts: Mapping[str, float | None] = _NO_TIMEOUTS,
) -> ToolBatch:
    """Run each call in order with its function (sync), within its tool's timeout; never raises.

    Runs on the shell's tool runner (:func:`agentsm_fn.shell.tools.call_tool`), as the
    ReAct agent's tools do. Async tools need ``arun``.

    Example:
        >>> calls = (ToolCall("c1", "add", {"a": 2, "b": 3}), ToolCall("c2", "nope"))
        >>> batch = run_tool_calls({"add": lambda a, b: a + b}, {}, RunTools(calls))
        >>> [(r.content, r.is_error) for r in batch.results]
        [('5', False), ("unknown tool 'nope'; available: ['add']", True)]
    """
    results: list[ToolResult] = []
    for call in effect.calls:
        prepared = _prepare(tools, specs, call)
        if isinstance(prepared, ToolResult):
            results.append(prepared)
            continue
        fn, arguments = prepared
        if inspect.iscoroutinefunction(fn):
            results.append(_error(call, f"{call.name} is async; run the agent with arun"))
            continue
        results.append(_outcome(call, call_tool(fn, arguments, timeouts.get(call.name), is_async=False)))
    return ToolBatch(tuple(results))


async def run_tool_calls_async(
    tools: Mapping[str, ToolFunction],
    specs: Mapping[str, ToolSpec],
    effect: RunTools,
    timeouts: Mapping[str, float | None] = _NO_TIMEOUTS,
) -> ToolBatch:
    """Run the calls, each within its tool's timeout; results in call order; never raises.

    Runs on the shell's tool runner (:func:`agentsm_fn.shell.tools.acall_tool`). Sync
    tools run one after another in call order on the event loop's thread (an awaitable
    one returns is awaited there), or, with a timeout, in a thread with a copy of the
    caller's context; async tools run concurrently with them and with each other.

    Example:
        >>> import asyncio
        >>> async def double(n: int) -> int:
        ...     return 2 * n
        >>> batch = asyncio.run(run_tool_calls_async({"double": double}, {},
        ...                                          RunTools((ToolCall("c1", "double", {"n": 4}),))))
        >>> batch.results[0].content
        '8'
    """

    async def run_async(call: ToolCall, fn: ToolFunction, arguments: dict[str, object]) -> ToolResult:
        return _outcome(call, await acall_tool(fn, arguments, timeouts.get(call.name), is_async=True))

    slots: list[ToolResult | asyncio.Task[ToolResult]] = []
    # The group cancels the async calls still running if this batch is cancelled.
    async with asyncio.TaskGroup() as group:
        for call in effect.calls:
            prepared = _prepare(tools, specs, call)
            if isinstance(prepared, ToolResult):
                slots.append(prepared)
                continue
            fn, arguments = prepared
            if inspect.iscoroutinefunction(fn):
                slots.append(group.create_task(run_async(call, fn, arguments)))
                continue
            outcome = await acall_tool(  # in call order: the next sync tool waits for this one
                fn,
                arguments,
                timeouts.get(call.name),
                is_async=False,
                await_result=True,  # a plain function may return an awaitable (see ToolFunction)
                on_loop=True,
            )
            slots.append(_outcome(call, outcome))
    return ToolBatch(tuple(slot if isinstance(slot, ToolResult) else slot.result() for slot in slots))


def tool_timeouts(tools: Mapping[str, ToolFunction | Tool] | ToolRegistry) -> Mapping[str, float | None]:
    """Each tool's timeout in seconds (``ToolDef.timeout`` of ``Tool`` values; plain functions: none).

    Under ``arun`` a sync tool with a timeout runs in a thread (in a copy of the caller's
    contextvars context) so the wait can stop; without one it runs on the event loop's thread.

    Example:
        >>> registry = ToolRegistry().register("slow", "Slow", {}, lambda: "", timeout=2.5)
        >>> dict(tool_timeouts(registry)), dict(tool_timeouts({"f": lambda: ""}))
        ({'slow': 2.5}, {})
    """
    entries = [(t.name, t) for t in tools] if isinstance(tools, ToolRegistry) else list(tools.items())
    return MappingProxyType(
        {name: entry.definition.timeout for name, entry in entries if isinstance(entry, Tool)}
    )


def plan_execute_performers(
    provider: LlmProvider | AsyncLlmProvider,
    tools: Mapping[str, ToolFunction],
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

    performers = performers.on_async(RunTools, tools_async)
    if isinstance(provider, LlmProvider):
        sync_provider = provider
        performers = performers.on(LlmCall, lambda effect: sync_provider.complete(effect.request))
    if isinstance(provider, AsyncLlmProvider):
        async_provider = provider

        def call_async(effect: LlmCall) -> Awaitable[LlmOutcome]:
            return async_provider.acomplete(effect.request)

        performers = performers.on_async(LlmCall, call_async)
    return performers


def _freeze_tools(
    value: Mapping[str, ToolFunction | Tool] | ToolRegistry,
) -> Mapping[str, ToolFunction | Tool] | ToolRegistry:
    return value if isinstance(value, ToolRegistry) else MappingProxyType(dict(value))


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _optional_specs(value: Iterable[ToolSpec] | None) -> tuple[ToolSpec, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class AgentFSM:
    """The seed's ``AgentFSM``: build with a provider, tools, planner, policy, max_iterations; run.

    ``run`` returns ``Success(Completed)`` (``result.done`` is True, ``fsm`` is the
    run to inspect) or ``Failure`` of :data:`AgentError`: ``ExecutionError``,
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

    provider: LlmProvider | AsyncLlmProvider
    tools: Mapping[str, ToolFunction | Tool] | ToolRegistry = attrs.field(
        factory=dict, converter=_freeze_tools
    )
    tool_specs: tuple[ToolSpec, ...] | None = attrs.field(default=None, converter=_optional_specs)
    planner: PlannerConfig = attrs.field(factory=PlannerConfig)
    decider: DeciderConfig = attrs.field(factory=DeciderConfig)
    executor: ExecutorConfig = attrs.field(factory=ExecutorConfig)
    finalizer: FinalizerConfig = attrs.field(factory=FinalizerConfig)
    policy: Policy = attrs.field(factory=Policy)
    max_iterations: int = 20
    finish_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    model: str = ""
    clock: Clock = system_clock

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
        return Shell(performers, self.clock)

    def run(self, initial_input: str) -> Result[Completed, AgentError]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (synchronous)."""
        return interpret(run(PLAN_EXECUTE_MACHINE, self.start(initial_input), self.shell()))

    async def arun(self, initial_input: str) -> Result[Completed, AgentError]:
        """Run the FSM on ``initial_input`` to FINALIZE or HALT (asyncio)."""
        return interpret(await arun(PLAN_EXECUTE_MACHINE, self.start(initial_input), self.shell()))
