"""Running a plan-and-execute ``RunTools`` batch: each call checked, run and turned into a result.

A tool never breaks the run: an exception, bad arguments or an unknown name
become an error result (credentials redacted from an exception's text:
:mod:`agentsm_fn.shell.credentials`), which the policy turns into a halt
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
import functools
import inspect
from collections.abc import Mapping
from types import MappingProxyType

from returns.result import Failure

from agentsm_fn.agents.plan_execute import PlanExecuteToolResult, RunTools, ToolBatch
from agentsm_fn.agents.plan_execute.structured import schema_errors
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolCall, ToolSpec
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.observing import aperform_part, perform_part
from agentsm_fn.shell.tool_functions import tool_text
from agentsm_fn.shell.tools import CallOutcome, Raised, Returned, acall_tool, call_tool
from agentsm_fn.tools.registry import ToolFn

__all__ = ["run_tool_calls", "run_tool_calls_async"]


def _error(call: ToolCall, message: str) -> PlanExecuteToolResult:
    return PlanExecuteToolResult(call_id=call.id, name=call.name, content=message, is_error=True)


def _prepare(
    tools: Mapping[str, ToolFn], specs: Mapping[str, ToolSpec], call: ToolCall
) -> PlanExecuteToolResult | tuple[ToolFn, dict[str, object]]:
    fn = tools.get(call.name)
    if fn is None:
        return _error(call, f"unknown tool {call.name!r}; available: {sorted(tools)}")
    spec = specs.get(call.name)
    problems = schema_errors(call.arguments, spec.parameters) if spec is not None else ()
    if problems:
        return _error(call, f"invalid arguments for {call.name}: {'; '.join(problems)}")
    arguments = thaw(call.arguments)
    return fn, dict(arguments) if isinstance(arguments, dict) else {}


def _result(call: ToolCall, value: object) -> PlanExecuteToolResult:
    if isinstance(value, Failure):
        return _error(call, redact_credentials(f"{call.name} failed: {value.failure()}"))
    return PlanExecuteToolResult(call_id=call.id, name=call.name, content=tool_text(value))


def _raised(call: ToolCall, exc: BaseException) -> PlanExecuteToolResult:
    return _error(call, redact_credentials(f"{call.name} raised {type(exc).__name__}: {exc}")[:2000])


def _outcome(call: ToolCall, outcome: CallOutcome) -> PlanExecuteToolResult:
    if isinstance(outcome, Returned):
        return _result(call, outcome.value)
    if isinstance(outcome, Raised):
        return _raised(call, outcome.error)
    return _error(call, f"{call.name} timed out: no result within {outcome.seconds}s")


_NO_TIMEOUTS: Mapping[str, float | None] = MappingProxyType({})


def run_tool_calls(
    tools: Mapping[str, ToolFn],
    specs: Mapping[str, ToolSpec],
    effect: RunTools,
    timeouts: Mapping[str, float | None] = _NO_TIMEOUTS,
) -> ToolBatch:
    """Run each call in order with its function (sync), within its tool's timeout; never raises.

    Runs on the shell's tool runner (:func:`agentsm_fn.shell.tools.call_tool`), as the
    ReAct agent's tools do: an async tool (an MCP server's, say) runs on a fresh event
    loop in a thread, as under the ReAct agent's ``run``.

    Example:
        >>> calls = (ToolCall("c1", "add", {"a": 2, "b": 3}), ToolCall("c2", "nope"))
        >>> batch = run_tool_calls({"add": lambda a, b: a + b}, {}, RunTools(calls))
        >>> [(r.content, r.is_error) for r in batch.results]
        [('5', False), ("unknown tool 'nope'; available: ['add']", True)]
    """
    return ToolBatch(
        tuple(
            # each call is reported to an observer as a part of the batch
            perform_part(RunTools((call,)), functools.partial(_run_one, tools, specs, call, timeouts))
            for call in effect.calls
        )
    )


def _run_one(
    tools: Mapping[str, ToolFn],
    specs: Mapping[str, ToolSpec],
    call: ToolCall,
    timeouts: Mapping[str, float | None],
) -> PlanExecuteToolResult:
    prepared = _prepare(tools, specs, call)
    if isinstance(prepared, PlanExecuteToolResult):
        return prepared
    fn, arguments = prepared
    is_async = inspect.iscoroutinefunction(fn)  # an async tool runs on a fresh loop in a thread
    return _outcome(call, call_tool(fn, arguments, timeouts.get(call.name), is_async=is_async))


async def run_tool_calls_async(
    tools: Mapping[str, ToolFn],
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

    async def run_async(call: ToolCall, fn: ToolFn, arguments: dict[str, object]) -> PlanExecuteToolResult:
        return _outcome(call, await acall_tool(fn, arguments, timeouts.get(call.name), is_async=True))

    async def run_sync(call: ToolCall, fn: ToolFn, arguments: dict[str, object]) -> PlanExecuteToolResult:
        outcome = await acall_tool(  # in call order: the next sync tool waits for this one
            fn,
            arguments,
            timeouts.get(call.name),
            is_async=False,
            await_result=True,  # a plain function may return an awaitable (see ToolFn)
            on_loop=True,
        )
        return _outcome(call, outcome)

    async def prepared_error(result: PlanExecuteToolResult) -> PlanExecuteToolResult:
        return result

    slots: list[PlanExecuteToolResult | asyncio.Task[PlanExecuteToolResult]] = []
    # The group cancels the async calls still running if this batch is cancelled.
    async with asyncio.TaskGroup() as group:
        for call in effect.calls:
            part = RunTools((call,))  # each call is reported to an observer as a part of the batch
            prepared = _prepare(tools, specs, call)
            if isinstance(prepared, PlanExecuteToolResult):
                slots.append(await aperform_part(part, functools.partial(prepared_error, prepared)))
                continue
            fn, arguments = prepared
            if inspect.iscoroutinefunction(fn):
                work = functools.partial(run_async, call, fn, arguments)
                slots.append(group.create_task(aperform_part(part, work)))
                continue
            slots.append(await aperform_part(part, functools.partial(run_sync, call, fn, arguments)))
    return ToolBatch(
        tuple(slot if isinstance(slot, PlanExecuteToolResult) else slot.result() for slot in slots)
    )
