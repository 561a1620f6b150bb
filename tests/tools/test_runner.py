"""The shell's tool runner: sync and async tools, timeouts, exceptions, batches in call order."""

from __future__ import annotations

import asyncio
import contextvars
import threading

from agentsm_fn.agents.react import RunTool, RunToolBatch
from agentsm_fn.llm import ToolCall
from agentsm_fn.shell.tools import ToolRunner
from agentsm_fn.tools import ToolRegistry, tool

OBJ: dict[str, object] = {"type": "object"}


def _run(tool_name: str, call_id: str = "c", timeout: float | None = None, **arguments: object) -> RunTool:
    return RunTool(ToolCall(call_id, tool_name, arguments), timeout=timeout)


def _registry() -> ToolRegistry:
    def boom() -> str:
        raise RuntimeError("disk on fire")

    async def ahello(name: str) -> str:
        await asyncio.sleep(0)
        return f"hello {name}"

    async def aboom() -> str:
        raise KeyError("missing")

    return (
        ToolRegistry()
        .register("echo", "", OBJ, lambda text: text)
        .register("boom", "", OBJ, boom)
        .register("ahello", "", OBJ, ahello)
        .register("aboom", "", OBJ, aboom)
    )


def test_sync_success_and_failure() -> None:
    runner = ToolRunner(_registry())
    assert runner.run_one(_run("echo", text="hi")).observation == "SUCCESS: hi"
    assert runner.run_one(_run("boom")).observation == "ERROR: RuntimeError: disk on fire"
    assert runner.run_one(_run("nope")).error_type == "ToolNotFound"
    assert runner.run_one(_run("echo", text="x", timeout=5.0)).observation == "SUCCESS: x"


def test_async_tool_in_a_sync_run() -> None:
    runner = ToolRunner(_registry())
    assert runner.run_one(_run("ahello", name="Ada")).observation == "SUCCESS: hello Ada"
    assert runner.run_one(_run("aboom")).error_type == "KeyError"


async def test_async_runner() -> None:
    runner = ToolRunner(_registry())
    assert (await runner.arun_one(_run("ahello", name="Ada"))).output == "hello Ada"
    assert (await runner.arun_one(_run("echo", text="hi"))).output == "hi"
    assert (await runner.arun_one(_run("boom"))).error_type == "RuntimeError"
    assert (await runner.arun_one(_run("nope"))).error_type == "ToolNotFound"


def test_sync_timeout_becomes_a_timeout_error_result() -> None:
    release = threading.Event()
    reg = ToolRegistry().register("stuck", "", OBJ, lambda: "late" if release.wait(10) else "never")
    try:
        result = ToolRunner(reg).run_one(_run("stuck", timeout=0.05))
    finally:
        release.set()
    assert result.ok is False
    assert result.observation == "ERROR: TimeoutError: no result within 0.05s"


async def test_async_timeout_becomes_a_timeout_error_result() -> None:
    never = asyncio.Event()

    async def stuck() -> str:
        await never.wait()
        return "late"

    reg = ToolRegistry().register("stuck", "", OBJ, stuck)
    result = await ToolRunner(reg).arun_one(_run("stuck", timeout=0.05))
    assert result.error_type == "TimeoutError"


def test_sync_batch_keeps_call_order_when_later_calls_finish_first() -> None:
    second_done = threading.Event()
    finished: list[str] = []

    def first() -> str:
        second_done.wait(10)
        finished.append("first")
        return "1"

    def second() -> str:
        finished.append("second")
        second_done.set()
        return "2"

    reg = ToolRegistry().register("first", "", OBJ, first).register("second", "", OBJ, second)
    batch = RunToolBatch((_run("first", "a"), _run("second", "b")))
    results = ToolRunner(reg).run_batch(batch).results
    assert finished == ["second", "first"]
    assert [(r.call_id, r.output) for r in results] == [("a", "1"), ("b", "2")]


async def test_async_batch_keeps_call_order_when_later_calls_finish_first() -> None:
    second_done = asyncio.Event()
    finished: list[str] = []

    @tool
    async def first() -> str:
        """First."""
        await second_done.wait()
        finished.append("first")
        return "1"

    @tool
    async def second() -> str:
        """Second."""
        finished.append("second")
        second_done.set()
        return "2"

    reg = ToolRegistry().add(first).add(second)
    batch = RunToolBatch((_run("first", "a"), _run("second", "b"), _run("missing", "c")))
    results = (await ToolRunner(reg).arun_batch(batch)).results
    assert finished == ["second", "first"]
    assert [(r.call_id, r.ok) for r in results] == [("a", True), ("b", True), ("c", False)]


def test_empty_batch() -> None:
    assert ToolRunner(ToolRegistry()).run_batch(RunToolBatch(())).results == ()


def test_runner_performers_cover_both_effects() -> None:
    performers = ToolRunner(ToolRegistry()).performers()
    assert set(performers.sync) == {RunTool, RunToolBatch}
    assert set(performers.asynchronous) == {RunTool, RunToolBatch}


def test_a_tool_calling_sys_exit_is_a_failed_call() -> None:
    import sys

    def quitter() -> str:
        sys.exit(3)

    reg = ToolRegistry().register("quit", "", OBJ, quitter)
    assert ToolRunner(reg).run_one(_run("quit")).error_type == "SystemExit"
    assert ToolRunner(reg).run_one(_run("quit", timeout=5.0)).error_type == "SystemExit"


async def test_async_timeout_of_a_sync_tool_does_not_wait_for_it() -> None:
    release = threading.Event()
    reg = ToolRegistry().register("stuck", "", OBJ, lambda: "late" if release.wait(10) else "never")
    try:
        result = await ToolRunner(reg).arun_one(_run("stuck", timeout=0.05))
    finally:
        release.set()
    assert result.error_type == "TimeoutError"


REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="<unset>")


def test_a_tool_raising_timeout_error_itself_reads_the_same_under_run_and_arun() -> None:
    def flaky() -> str:
        raise TimeoutError("upstream API did not answer in 2s")

    async def aflaky() -> str:
        raise TimeoutError("upstream API did not answer in 2s")

    runner = ToolRunner(ToolRegistry().register("flaky", "", OBJ, flaky).register("aflaky", "", OBJ, aflaky))
    expected = "ERROR: TimeoutError: upstream API did not answer in 2s"
    for name in ("flaky", "aflaky"):
        for timeout in (30.0, None):
            effect = _run(name, timeout=timeout)
            assert runner.run_one(effect).observation == expected
            assert asyncio.run(runner.arun_one(effect)).observation == expected


def test_contextvars_reach_sync_tools_run_in_threads_by_run_and_arun() -> None:
    runner = ToolRunner(ToolRegistry().register("who", "", OBJ, REQUEST_ID.get))
    calls = (_run("who", "c1"), _run("who", "c2", timeout=5.0))

    async def arun_all() -> list[str]:
        return [r.output for r in (await runner.arun_batch(RunToolBatch(calls))).results]

    token = REQUEST_ID.set("req-42")
    try:
        sync_outputs = [r.output for r in runner.run_batch(RunToolBatch(calls)).results]
        async_outputs = asyncio.run(arun_all())  # asyncio.run copies this context into its task
    finally:
        REQUEST_ID.reset(token)
    assert sync_outputs == ["req-42", "req-42"]
    assert async_outputs == ["req-42", "req-42"]
