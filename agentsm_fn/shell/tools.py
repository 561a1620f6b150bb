"""The tool runner: the one place tools run, for the ReAct agent and for plan-and-execute.

:func:`call_tool` and :func:`acall_tool` call one tool function and never raise:
they return what happened (:class:`Returned`, :class:`Raised` or :class:`TimedOut`),
honouring the tool's timeout. Async tools run on the event loop (sync runs give each
one a fresh loop in a thread); under asyncio, sync tools run in a daemon thread, so
they neither block the loop nor each other (``on_loop=True`` keeps a sync tool without
a timeout on the loop thread instead). Every thread runs the tool in a copy of the
caller's ``contextvars`` context. A sync tool that times out keeps running in its
thread (Python cannot kill a thread); its result is discarded. Only an expired
timeout is :class:`TimedOut`: a tool that raises ``TimeoutError`` itself has
:class:`Raised` it.

:class:`ToolRunner` performs the ReAct agent's RunTool and RunToolBatch effects with
them: failures become failed :class:`ReactToolResult` values (``ERROR: {type}: {msg}`` for
the LLM, credentials redacted from the message), and a batch runs concurrently with its
results in call order whatever order the tools finish in. The plan-and-execute shell
(``tool_batches``) uses the same two functions for its RunTools effect.

One idea over 300 lines: calling a tool, sync and async, in every way the runner needs.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
from collections.abc import Awaitable
from types import CoroutineType, MappingProxyType
from typing import TypeAlias, TypeVar, cast

import attrs
from pyrsistent import PMap
from returns.result import Failure, Success

from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ReactToolResult, ToolBatchResult
from agentsm_fn.llm.json import thaw
from agentsm_fn.shell._threads import in_daemon_thread as _in_daemon_thread
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.observing import aperform_part, perform_part
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.tools.registry import ToolFn, ToolRegistry, outcome_text

__all__ = ["CallOutcome", "Raised", "Returned", "TimedOut", "ToolRunner", "acall_tool", "call_tool"]

T = TypeVar("T")


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _kwargs(effect: RunTool) -> dict[str, object]:
    """The call's arguments as plain keywords (``thaw``, with scalar values taken as they are)."""
    arguments = effect.call.arguments
    if not isinstance(arguments, PMap):  # pragma: no cover - ToolCall freezes its arguments
        plain = thaw(arguments)
        return plain if isinstance(plain, dict) else {}
    return {name: value if type(value) in _SCALARS else thaw(value) for name, value in arguments.items()}


def _result(effect: RunTool, value: object) -> ReactToolResult:
    call = effect.call
    if type(value) is str:  # the usual case; outcome_text would say Success(value)
        return ReactToolResult(call_id=call.id, name=call.name, ok=True, output=value)
    match outcome_text(value):
        case Success(output):
            return ReactToolResult(call_id=call.id, name=call.name, ok=True, output=output)
        case Failure(error):  # its message may quote an exception the tool caught
            return ReactToolResult.failure(
                call.id, call.name, error.error_type, redact_credentials(error.message)
            )
    raise AssertionError("unreachable: outcome_text returns Success or Failure")  # pragma: no cover


def _raised(effect: RunTool, exc: BaseException) -> ReactToolResult:
    message = redact_credentials(str(exc))
    return ReactToolResult.failure(effect.call.id, effect.call.name, type(exc).__name__, message)


def _timed_out(effect: RunTool) -> ReactToolResult:
    call = effect.call
    return ReactToolResult.failure(call.id, call.name, "TimeoutError", f"no result within {effect.timeout}s")


def _not_found(effect: RunTool) -> ReactToolResult:
    call = effect.call
    return ReactToolResult.failure(
        call.id, call.name, "ToolNotFound", f"Tool '{call.name}' not found in registry"
    )


@attrs.frozen
class Returned:
    """The tool returned ``value`` (maybe a ``returns`` Success or Failure)."""

    value: object


@attrs.frozen
class Raised:
    """The tool raised ``error`` (an exception, or SystemExit: a tool must not end the run)."""

    error: BaseException


@attrs.frozen
class TimedOut:
    """The tool gave no result within ``seconds``."""

    seconds: float


CallOutcome: TypeAlias = Returned | Raised | TimedOut
"""What calling one tool function came to."""


async def _awaited(fn: ToolFn, kwargs: dict[str, object]) -> object:
    awaitable = fn(**kwargs)
    if type(awaitable) is CoroutineType:  # the usual case, without the ABC check below
        return await awaitable
    if not isinstance(awaitable, Awaitable):  # pragma: no cover - a coroutine function's result
        return awaitable
    return await awaitable


def _call_here(fn: ToolFn, kwargs: dict[str, object], is_async: bool) -> Returned | Raised:
    try:
        return Returned(asyncio.run(_awaited(fn, kwargs)) if is_async else fn(**kwargs))
    except (Exception, SystemExit) as exc:  # a tool must not end the run, even by sys.exit
        return Raised(exc)


def call_tool(fn: ToolFn, kwargs: dict[str, object], timeout: float | None, *, is_async: bool) -> CallOutcome:
    """Call one tool function synchronously; never raises.

    Example:
        >>> call_tool(lambda a, b: a + b, {"a": 2, "b": 3}, None, is_async=False)
        Returned(value=5)
        >>> type(call_tool(lambda: 1 / 0, {}, 5.0, is_async=False).error).__name__
        'ZeroDivisionError'
    """
    if timeout is None and not is_async:
        return _call_here(fn, kwargs, is_async=False)
    # A daemon thread gives the timeout (and a fresh event loop for an async tool);
    # a tool that never returns cannot block the interpreter's exit.
    future = _in_daemon_thread(lambda: _call_here(fn, kwargs, is_async))
    try:
        return future.result(timeout=timeout)
    except concurrent.futures.TimeoutError:
        return TimedOut(cast(float, timeout))  # result() without a timeout never times out


async def acall_tool(
    fn: ToolFn,
    kwargs: dict[str, object],
    timeout: float | None,
    *,
    is_async: bool,
    await_result: bool = False,
    on_loop: bool = False,
) -> CallOutcome:
    """Call one tool function under asyncio (a sync one in a daemon thread); never raises.

    ``await_result``: also await an awaitable that a sync function returns (within the timeout).
    ``on_loop``: call a sync function without a timeout here, on the event loop's thread
    (it blocks the loop while it runs; thread-bound objects and the running loop work);
    with a timeout it still needs a thread, to stop waiting for it.

    Example:
        >>> import asyncio
        >>> async def slow() -> str:
        ...     await asyncio.sleep(10)
        ...     return "late"
        >>> asyncio.run(acall_tool(slow, {}, 0.01, is_async=True))
        TimedOut(seconds=0.01)
    """
    if on_loop and timeout is None and not is_async:
        return await _on_loop(fn, kwargs, await_result)
    work: Awaitable[object] = (
        _awaited(fn, kwargs) if is_async else asyncio.wrap_future(_in_daemon_thread(lambda: fn(**kwargs)))
    )
    if timeout is None:
        try:
            value = await work
            if await_result and inspect.isawaitable(value):
                value = await value
            return Returned(value)
        except (Exception, SystemExit) as exc:
            return Raised(exc)
    scope = asyncio.timeout(timeout)  # in this task (wait_for would start one per call)
    try:
        async with scope:
            value = await work
            if await_result and inspect.isawaitable(value):
                value = await value
            return Returned(value)
    except TimeoutError as exc:  # the tool's own TimeoutError is what it raised, not a timeout
        return TimedOut(timeout) if scope.expired() else Raised(exc)
    except (Exception, SystemExit) as exc:
        return Raised(exc)


async def _on_loop(fn: ToolFn, kwargs: dict[str, object], await_result: bool) -> CallOutcome:
    try:
        value = fn(**kwargs)
        if await_result and inspect.isawaitable(value):
            value = await value
        return Returned(value)
    except (Exception, SystemExit) as exc:
        return Raised(exc)


def _react_result(effect: RunTool, outcome: CallOutcome) -> ReactToolResult:
    if type(outcome) is Returned:
        return _result(effect, outcome.value)
    if type(outcome) is Raised:
        return _raised(effect, outcome.error)
    return _timed_out(effect)


@attrs.frozen
class ToolRunner:
    """Runs the tools of a registry for the agent's tool effects.

    Example:
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> runner = ToolRunner(ToolRegistry().register("add", "Add", {"type": "object"}, lambda a, b: a + b))
        >>> runner.run_one(RunTool(ToolCall("c1", "add", {"a": 2, "b": 3}))).observation
        'SUCCESS: 5'
        >>> runner.run_one(RunTool(ToolCall("c2", "add", {"a": 2}))).error_type
        'TypeError'
    """

    registry: ToolRegistry

    def run_one(self, effect: RunTool) -> ReactToolResult:
        """Run one call synchronously; never raises."""
        tool = self.registry.get(effect.call.name)
        if tool is None:
            return _not_found(effect)
        return _react_result(
            effect, call_tool(tool.fn, _kwargs(effect), effect.timeout, is_async=tool.is_async)
        )

    def run_batch(self, effect: RunToolBatch) -> ToolBatchResult:
        """Run every call concurrently in threads; results in call order."""
        if not effect.runs:
            return ToolBatchResult(())
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=len(effect.runs), thread_name_prefix="agentsm-batch"
        ) as pool:
            # one context copy per call: a context cannot be entered by two threads at once
            futures = [
                pool.submit(contextvars.copy_context().run, self._run_part, run) for run in effect.runs
            ]
            return ToolBatchResult(tuple(f.result() for f in futures))

    def _run_part(self, effect: RunTool) -> ReactToolResult:
        """:meth:`run_one`, reported to an observer as a part of the batch."""
        return perform_part(effect, lambda: self.run_one(effect))

    async def arun_one(self, effect: RunTool) -> ReactToolResult:
        """Run one call on the event loop (sync tools in a thread); never raises."""
        tool = self.registry.get(effect.call.name)
        if tool is None:
            return _not_found(effect)
        outcome = await acall_tool(tool.fn, _kwargs(effect), effect.timeout, is_async=tool.is_async)
        return _react_result(effect, outcome)

    async def arun_batch(self, effect: RunToolBatch) -> ToolBatchResult:
        """Run every call concurrently on the event loop; results in call order."""
        results = await asyncio.gather(*(self._arun_part(run) for run in effect.runs))
        return ToolBatchResult(tuple(results))

    async def _arun_part(self, effect: RunTool) -> ReactToolResult:
        """:meth:`arun_one`, reported to an observer as a part of the batch."""
        return await aperform_part(effect, lambda: self.arun_one(effect))

    def performers(self) -> Performers:
        """Performers for RunTool and RunToolBatch, sync and async."""
        # Built in one step (this runs once per agent run); the casts are Performers.on's own:
        # each function only ever receives its own effect type (performers are found by type).
        sync = {RunTool: cast(Performer, self.run_one), RunToolBatch: cast(Performer, self.run_batch)}
        asynchronous = {
            RunTool: cast(AsyncPerformer, self.arun_one),
            RunToolBatch: cast(AsyncPerformer, self.arun_batch),
        }
        return Performers(MappingProxyType(sync), MappingProxyType(asynchronous))
