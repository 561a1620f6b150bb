"""The tool runner: performs RunTool and RunToolBatch effects (the only place tools run).

Sync and async tools; a per-tool timeout; exceptions caught and returned as
failed :class:`ToolResult` values (``ERROR: {type}: {msg}`` for the LLM); a batch
runs concurrently and its results come back in call order whatever order the
tools finish in. A sync tool that times out keeps running in its worker thread
(Python cannot kill a thread); its result is discarded.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Awaitable, Callable
from types import CoroutineType, MappingProxyType
from typing import TypeVar, cast

import attrs
from returns.result import Failure, Success

from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ToolBatchResult, ToolResult
from agentsm_fn.llm.json import thaw
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.tools.registry import Tool, ToolRegistry, outcome_text

__all__ = ["ToolRunner"]

T = TypeVar("T")


def _kwargs(effect: RunTool) -> dict[str, object]:
    plain = thaw(effect.call.arguments)
    return plain if isinstance(plain, dict) else {}


def _result(effect: RunTool, value: object) -> ToolResult:
    call = effect.call
    if type(value) is str:  # the usual case; outcome_text would say Success(value)
        return ToolResult(call_id=call.id, name=call.name, ok=True, output=value)
    match outcome_text(value):
        case Success(output):
            return ToolResult(call_id=call.id, name=call.name, ok=True, output=output)
        case Failure(error):
            return ToolResult.failure(call.id, call.name, error.error_type, error.message)
    raise AssertionError("unreachable: outcome_text returns Success or Failure")  # pragma: no cover


def _raised(effect: RunTool, exc: BaseException) -> ToolResult:
    return ToolResult.failure(effect.call.id, effect.call.name, type(exc).__name__, str(exc))


def _timed_out(effect: RunTool) -> ToolResult:
    call = effect.call
    return ToolResult.failure(call.id, call.name, "TimeoutError", f"no result within {effect.timeout}s")


def _not_found(effect: RunTool) -> ToolResult:
    call = effect.call
    return ToolResult.failure(call.id, call.name, "ToolNotFound", f"Tool '{call.name}' not found in registry")


async def _await_tool(tool: Tool, kwargs: dict[str, object]) -> object:
    awaitable = tool.fn(**kwargs)
    if type(awaitable) is CoroutineType:  # the usual case, without the ABC check below
        return await awaitable
    if not isinstance(awaitable, Awaitable):  # pragma: no cover - is_async guarantees a coroutine
        return awaitable
    return await awaitable


def _in_daemon_thread(work: Callable[[], T]) -> concurrent.futures.Future[T]:
    """Run ``work`` in a daemon thread (never joined at exit); its result arrives in the future."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def target() -> None:
        if not future.set_running_or_notify_cancel():  # pragma: no cover - cancelled before start
            return
        try:
            future.set_result(work())
        except BaseException as exc:  # handed to the waiter, which reports it as a failed call
            future.set_exception(exc)

    threading.Thread(target=target, name="agentsm-tool", daemon=True).start()
    return future


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

    def _call_sync(self, tool: Tool, effect: RunTool) -> ToolResult:
        kwargs = _kwargs(effect)
        try:
            if tool.is_async:
                return _result(effect, asyncio.run(_await_tool(tool, kwargs)))
            return _result(effect, tool.fn(**kwargs))
        except (Exception, SystemExit) as exc:  # a tool must not end the run, even by sys.exit
            return _raised(effect, exc)

    def run_one(self, effect: RunTool) -> ToolResult:
        """Run one call synchronously; never raises."""
        tool = self.registry.get(effect.call.name)
        if tool is None:
            return _not_found(effect)
        if effect.timeout is None and not tool.is_async:
            return self._call_sync(tool, effect)
        # A daemon thread gives the timeout (and a fresh event loop for an async tool);
        # a tool that never returns cannot block the interpreter's exit.
        future = _in_daemon_thread(lambda: self._call_sync(tool, effect))
        try:
            return future.result(timeout=effect.timeout)
        except concurrent.futures.TimeoutError:
            return _timed_out(effect)

    def run_batch(self, effect: RunToolBatch) -> ToolBatchResult:
        """Run every call concurrently in threads; results in call order."""
        if not effect.runs:
            return ToolBatchResult(())
        with concurrent.futures.ThreadPoolExecutor(
            max_workers=len(effect.runs), thread_name_prefix="agentsm-batch"
        ) as pool:
            futures = [pool.submit(self.run_one, run) for run in effect.runs]
            return ToolBatchResult(tuple(f.result() for f in futures))

    async def arun_one(self, effect: RunTool) -> ToolResult:
        """Run one call on the event loop (sync tools in a thread); never raises."""
        tool = self.registry.get(effect.call.name)
        if tool is None:
            return _not_found(effect)
        kwargs = _kwargs(effect)
        work: Awaitable[object]
        if tool.is_async:
            work = _await_tool(tool, kwargs)
        else:
            work = asyncio.wrap_future(_in_daemon_thread(lambda: tool.fn(**kwargs)))
        try:
            if effect.timeout is None:
                value = await work
            else:  # in this task (asyncio.wait_for would start another one per call)
                async with asyncio.timeout(effect.timeout):
                    value = await work
        except TimeoutError:
            return _timed_out(effect)
        except (Exception, SystemExit) as exc:
            return _raised(effect, exc)
        return _result(effect, value)

    async def arun_batch(self, effect: RunToolBatch) -> ToolBatchResult:
        """Run every call concurrently on the event loop; results in call order."""
        results = await asyncio.gather(*(self.arun_one(run) for run in effect.runs))
        return ToolBatchResult(tuple(results))

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
