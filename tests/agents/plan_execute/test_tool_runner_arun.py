"""Plan-and-execute under ``arun`` runs a batch's sync tools as ``run`` does: in call order, on one thread.

Each test here is a reviewer's reproduction: the runner used to start every sync tool
of a batch in its own thread, concurrently, which broke thread-bound tools, tools that
return an awaitable needing the running loop, ContextVars and the order of side effects.
"""

from __future__ import annotations

import asyncio
import contextvars
import sqlite3
import threading
from collections.abc import Callable, Mapping

from agentsm_fn.agents.plan_execute import RunTools, ToolBatch
from agentsm_fn.llm import ToolCall
from agentsm_fn.shell.tool_batches import run_tool_calls, run_tool_calls_async

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="<unset>")


def _batch(*calls: tuple[str, dict[str, object]]) -> RunTools:
    return RunTools(tuple(ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(calls, 1)))


def _contents(batch: ToolBatch) -> list[tuple[str, bool]]:
    return [(r.content, r.is_error) for r in batch.results]


async def test_a_sqlite_connection_made_on_the_loop_thread_serves_two_tools_of_one_batch() -> None:
    db = sqlite3.connect(":memory:")  # sqlite3 objects may only be used in the thread that made them
    try:
        db.execute("create table t(x)")

        def write(x: int) -> str:
            db.execute("insert into t values (?)", (x,))
            return "ok"

        def count() -> int:
            return int(db.execute("select count(*) from t").fetchone()[0])

        batch = await run_tool_calls_async(
            {"write": write, "count": count}, {}, _batch(("write", {"x": 1}), ("count", {}))
        )
    finally:
        db.close()
    assert _contents(batch) == [("ok", False), ("1", False)]  # count saw the write before it


async def test_sync_side_effects_happen_in_call_order_on_the_loop_thread() -> None:
    loop_thread = threading.get_ident()
    log: list[tuple[str, bool]] = []

    def append(s: str) -> str:
        log.append((s, threading.get_ident() == loop_thread))  # one thread: no interleaving
        return s

    calls: list[tuple[str, dict[str, object]]] = [("append", {"s": str(i)}) for i in range(6)]
    batch = await run_tool_calls_async({"append": append}, {}, _batch(*calls))
    assert log == [(str(i), True) for i in range(6)]
    assert [content for content, _ in _contents(batch)] == [str(i) for i in range(6)]


async def test_a_sync_tool_returning_a_task_on_the_running_loop_is_awaited() -> None:
    async def fetch(q: str) -> str:
        return f"page for {q}"

    def search(q: str) -> asyncio.Task[str]:  # a plain function, needing the running loop
        return asyncio.get_running_loop().create_task(fetch(q))

    batch = await run_tool_calls_async({"search": search}, {}, _batch(("search", {"q": "x"})))
    assert _contents(batch) == [("page for x", False)]


async def test_contextvars_reach_sync_tools_with_and_without_a_timeout() -> None:
    def who() -> str:
        return REQUEST_ID.get()

    token = REQUEST_ID.set("req-42")
    try:
        tools = {"who": who, "timed_who": who}
        timeouts = {"timed_who": 5.0}  # a timed sync tool runs in a thread: it gets a copy of the context
        batch = await run_tool_calls_async(tools, {}, _batch(("who", {}), ("timed_who", {})), timeouts)
        sync_batch = run_tool_calls(tools, {}, _batch(("who", {}), ("timed_who", {})), timeouts)
    finally:
        REQUEST_ID.reset(token)
    assert _contents(batch) == [("req-42", False), ("req-42", False)]
    assert _contents(sync_batch) == _contents(batch)


async def test_a_timed_sync_tool_still_finishes_before_the_next_sync_tool_starts() -> None:
    log: list[str] = []
    in_thread: list[bool] = []

    def first() -> str:
        in_thread.append(threading.current_thread() is not threading.main_thread())
        log.append("first")
        return "1"

    def second() -> str:
        log.append("second")
        return "2"

    tools: Mapping[str, Callable[..., object]] = {"first": first, "second": second}
    batch = await run_tool_calls_async(tools, {}, _batch(("first", {}), ("second", {})), {"first": 5.0})
    assert in_thread == [True]  # the timeout needs a thread
    assert log == ["first", "second"]
    assert _contents(batch) == [("1", False), ("2", False)]


def test_a_tool_raising_timeout_error_itself_reads_the_same_under_run_and_arun() -> None:
    def flaky() -> str:
        raise TimeoutError("upstream API did not answer in 2s")

    async def aflaky() -> str:
        raise TimeoutError("upstream API did not answer in 2s")

    for fn in (flaky, aflaky):
        timeouts = {"flaky": 30.0}
        arun_batch = asyncio.run(run_tool_calls_async({"flaky": fn}, {}, _batch(("flaky", {})), timeouts))
        expected = [("flaky raised TimeoutError: upstream API did not answer in 2s", True)]
        assert _contents(arun_batch) == expected
        assert _contents(run_tool_calls({"flaky": fn}, {}, _batch(("flaky", {})), timeouts)) == expected
