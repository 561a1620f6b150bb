"""Plan-and-execute tools run on the shell's one tool runner: timeouts honoured, async batches concurrent."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable

from agentsm_fn.agents.plan_execute import ExecutionError, HaltCause, PlanExecutePolicy, RunTools
from agentsm_fn.llm import ToolCall, ToolResultMessage
from agentsm_fn.shell.tool_batches import run_tool_calls, run_tool_calls_async
from agentsm_fn.shell.tool_functions import tool_timeouts
from agentsm_fn.tools import ToolRegistry

from .helpers import answer, build_agent, call, plan_reply, scripted, tool_reply

OBJ: dict[str, object] = {"type": "object", "properties": {"query": {"type": "string"}}}


def test_a_hanging_async_tool_times_out_as_a_tool_failure() -> None:
    never = asyncio.Event()

    async def stuck(query: str) -> str:
        await never.wait()
        return "late"

    registry = ToolRegistry().register("search", "Search", OBJ, stuck, timeout=0.05)
    provider = scripted(plan_reply(), tool_reply(call("search", "c1")), answer())
    error = asyncio.run(build_agent(provider, tools=registry).arun("x")).failure()
    assert isinstance(error, ExecutionError)
    assert error.cause is HaltCause.TOOL_FAILURE
    assert "search timed out: no result within 0.05s" in error.describe()


def test_a_hanging_sync_tool_times_out_in_a_sync_run_and_the_model_can_be_told() -> None:
    release = threading.Event()
    registry = ToolRegistry().register(
        "search", "Search", OBJ, lambda query: "late" if release.wait(10) else "never", timeout=0.05
    )
    provider = scripted(plan_reply(), tool_reply(call("search", "c1")), answer("Gave up on search."))
    try:
        agent = build_agent(provider, tools=registry, policy=PlanExecutePolicy(halt_on_tool_error=False))
        done = agent.run("x").unwrap()
    finally:
        release.set()
    assert done.result.answer == "Gave up on search."
    told = provider.requests[2].messages[-1]
    assert isinstance(told, ToolResultMessage) and told.is_error
    assert told.content == "search timed out: no result within 0.05s"


async def test_async_calls_of_one_batch_run_concurrently_and_come_back_in_call_order() -> None:
    second_done = asyncio.Event()
    finished: list[str] = []

    async def first(query: str) -> str:
        await second_done.wait()  # run one after another, this would wait for ever (here: 5 s)
        finished.append("first")
        return "1"

    async def second(query: str) -> str:
        finished.append("second")
        second_done.set()
        return "2"

    registry = (
        ToolRegistry().register("first", "", OBJ, first, timeout=5.0).register("second", "", OBJ, second)
    )
    calls = (ToolCall("a", "first", {"query": "q"}), ToolCall("b", "second", {"query": "q"}))
    functions = {t.name: t.fn for t in registry}
    batch = await run_tool_calls_async(functions, {}, RunTools(calls), tool_timeouts(registry))
    assert finished == ["second", "first"]
    assert [(r.call_id, r.content, r.is_error) for r in batch.results] == [
        ("a", "1", False),
        ("b", "2", False),
    ]


async def test_a_plain_function_returning_an_awaitable_is_still_awaited() -> None:
    async def lookup(query: str) -> str:
        return f"found {query}"

    def plain(query: str) -> Awaitable[str]:  # not a coroutine function, but returns an awaitable
        return lookup(query)

    batch = await run_tool_calls_async(
        {"lookup": plain}, {}, RunTools((ToolCall("c1", "lookup", {"query": "q"}),))
    )
    assert batch.results[0].content == "found q"


def test_a_tool_calling_sys_exit_is_an_error_result_not_the_end_of_the_process() -> None:
    def leave(query: str) -> str:
        raise SystemExit(3)

    batch = run_tool_calls({"leave": leave}, {}, RunTools((ToolCall("c1", "leave", {"query": "q"}),)))
    assert batch.results[0].is_error and "raised SystemExit" in batch.results[0].content


def test_timeouts_come_from_tool_definitions_only() -> None:
    registry = ToolRegistry().register("slow", "", OBJ, lambda query: query, timeout=2.0)
    assert dict(tool_timeouts(registry)) == {"slow": 2.0}
    assert dict(tool_timeouts({"slow": next(iter(registry)), "plain": lambda query: query})) == {"slow": 2.0}
