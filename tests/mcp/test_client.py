"""The client against tests/mcp/server.py (the SDK's MCPServer), over stdio and Streamable HTTP.

One idea over 300 lines: the tests of one class, ``McpClient``, against one server.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import threading
from typing import cast

import pytest

from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.llm import ToolCall
from agentsm_fn.llm.json import thaw
from agentsm_fn.mcp import McpClient, McpConnectError, McpHandshake, McpTool
from agentsm_fn.mcp._session import _Session
from agentsm_fn.shell.tools import ToolRunner
from tests.mcp.conftest import HttpServer, MakeClient, Signals
from tests.mcp.server import PNG

TRANSPORTS = ["stdio", "http"]


@pytest.fixture(params=TRANSPORTS)
def make(request: pytest.FixtureRequest) -> MakeClient:
    maker: MakeClient = request.getfixturevalue(f"make_{request.param}")
    return maker


def run_one(client: McpClient, tool: str, timeout: float | None = None, **arguments: object) -> str:
    """One call through the shell's tool runner (sync), as the agent makes it: the observation."""
    call = ToolCall(id="c1", name=tool, arguments=arguments)
    return ToolRunner(client.registry()).run_one(RunTool(call, timeout=timeout)).observation


async def arun_one(client: McpClient, tool: str, **arguments: object) -> str:
    call = ToolCall(id="c1", name=tool, arguments=arguments)
    return (await ToolRunner(client.registry()).arun_one(RunTool(call))).observation


def test_tools_are_listed_as_tool_definitions_with_schemas(make: MakeClient) -> None:
    with make(prefix="test", needs_approval={"fail"}, timeout=9.0) as client:
        tools = {tool.name: tool for tool in client.tools()}
        listing = {tool.name: tool for tool in client.listing().tools}
    assert {"test_add", "test_echo", "test_hang", "test_weather"} <= set(tools)
    add = tools["test_add"].definition
    assert add.description == "Add two integers."
    assert thaw(add.parameters["required"]) == ["a", "b"]
    assert add.argument_problems({"a": 1, "b": "x"}) is not None
    assert add.timeout == 9.0 and not add.needs_approval
    assert tools["test_fail"].definition.needs_approval
    weather = listing["test_weather"]
    assert isinstance(weather, McpTool) and weather.remote_name == "weather"
    assert weather.output_schema is not None
    assert "celsius" in cast(dict[str, object], thaw(weather.output_schema["properties"]))
    assert tools["test_add"].is_async


def test_calls_give_text_structured_content_and_described_images(make: MakeClient) -> None:
    with make() as client:
        assert run_one(client, "add", a=2, b=3) == "SUCCESS: 5"
        weather = run_one(client, "weather", city="Oslo")
        assert json.loads(weather.removeprefix("SUCCESS: ")) == {"city": "Oslo", "celsius": 21}
        assert run_one(client, "picture") == f"SUCCESS: [image image/png, {len(PNG)} bytes]"


async def test_calls_work_from_asyncio_too(make: MakeClient) -> None:
    async with make() as client:
        assert await arun_one(client, "echo", text="from a loop") == "SUCCESS: from a loop"


def test_an_is_error_result_is_a_tool_failure(make: MakeClient) -> None:
    with make() as client:
        observation = run_one(client, "fail", message="disk on fire")
    assert observation.startswith("ERROR: ToolError: ") and "disk on fire" in observation


def test_a_tool_error_quoting_a_credential_of_ours_reaches_the_model_redacted(
    make: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("PAYMENTS_API_KEY", key)
    with make() as client:
        observation = run_one(client, "fail", message=f"upstream said 401 for key {key}")
    assert observation.startswith("ERROR: ToolError: ") and key not in observation
    assert observation.endswith("upstream said 401 for key [redacted]")


def test_a_failure_while_closing_is_logged_without_our_credentials(
    make_stdio: MakeClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    key = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    monkeypatch.setenv("PAYMENTS_API_KEY", key)
    client = make_stdio().open()

    async def refuse(_session: _Session) -> None:
        raise RuntimeError(f"shutdown refused for key {key}")

    monkeypatch.setattr(_Session, "shutdown", refuse)
    with caplog.at_level(logging.WARNING, logger="agentsm_fn.mcp.client"):
        client.close()
    assert "shutdown refused for key [redacted]" in caplog.text and key not in caplog.text


def test_arguments_are_checked_before_anything_is_sent(make: MakeClient, signals: Signals) -> None:
    with make() as client:
        assert run_one(client, "echo", text=7).startswith(
            "ERROR: McpInvalidArguments: arguments do not match"
        )
        assert run_one(client, "echo", text="real") == "SUCCESS: real"
    assert signals.expect("called echo") == "called echo real"  # the first call to reach the server
    assert signals.seen == ["called echo real"]


def test_a_timeout_is_a_failure_and_cancels_the_call_on_the_server(
    make: MakeClient, signals: Signals
) -> None:
    with make(timeout=0.5) as client:
        observation = run_one(client, "hang", timeout=0.5, tag="t1")
        assert observation == "ERROR: TimeoutError: no result within 0.5s"
        assert signals.expect("cancelled hang t1") == "cancelled hang t1"
        assert run_one(client, "add", a=1, b=1) == "SUCCESS: 2"  # the session goes on


async def test_a_cancelled_run_cancels_its_calls_on_the_server(make: MakeClient, signals: Signals) -> None:
    async with make() as client:
        task = asyncio.create_task(arun_one(client, "hang", tag="c1"))
        await asyncio.to_thread(signals.expect, "started hang c1")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert await asyncio.to_thread(signals.expect, "cancelled hang c1") == "cancelled hang c1"
        assert await arun_one(client, "add", a=2, b=2) == "SUCCESS: 4"


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_a_batch_runs_its_calls_concurrently(make: MakeClient, asynchronous: bool) -> None:
    runs = [RunTool(ToolCall(id=f"c{i}", name="meet", arguments={"group": "g", "size": 3})) for i in range(3)]
    with make(timeout=WAIT_FOR_MEETING) as client:
        runner = ToolRunner(client.registry())
        batch = (
            asyncio.run(runner.arun_batch(RunToolBatch(runs)))
            if asynchronous
            else runner.run_batch(RunToolBatch(runs))
        )
    assert [r.observation for r in batch.results] == [
        "SUCCESS: g: met 3"
    ] * 3  # sequential calls would time out


WAIT_FOR_MEETING = 60.0


def test_one_client_serves_many_runs_at_once_from_threads_and_loops(make: MakeClient) -> None:
    outputs: dict[str, str] = {}
    with make() as client:

        def sync_caller(i: int) -> None:
            outputs[f"t{i}"] = run_one(client, "echo", text=f"thread {i}")

        async def async_callers() -> None:
            results = await asyncio.gather(*(arun_one(client, "echo", text=f"task {i}") for i in range(8)))
            outputs.update({f"a{i}": text for i, text in enumerate(results)})

        threads = [threading.Thread(target=sync_caller, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        asyncio.run(async_callers())
        for thread in threads:
            thread.join()
    assert outputs == {
        **{f"t{i}": f"SUCCESS: thread {i}" for i in range(8)},
        **{f"a{i}": f"SUCCESS: task {i}" for i in range(8)},
    }


@pytest.mark.parametrize("handshake", ["auto", "legacy"])
def test_the_tool_list_is_followed_when_the_server_changes_it(
    make: MakeClient, handshake: McpHandshake
) -> None:
    changed = threading.Event()
    seen: list[tuple[str, ...]] = []

    def on_change(tools: tuple[McpTool, ...]) -> None:
        seen.append(tuple(tool.remote_name for tool in tools))
        changed.set()

    with make(on_tools_changed=on_change, handshake=handshake) as client:
        before = client.tools()
        assert run_one(client, "grow", name="shout") == "SUCCESS: added shout"
        assert changed.wait(WAIT_FOR_MEETING)
        assert "shout" in seen[-1] and "shout" in {tool.name for tool in client.tools()}
        assert run_one(client, "shout", text="hi") == "SUCCESS: shout: hi"
        changed.clear()
        assert run_one(client, "shrink", name="shout") == "SUCCESS: removed shout"
        assert changed.wait(WAIT_FOR_MEETING)
        assert "shout" not in seen[-1] and "shout" not in {tool.name for tool in client.tools()}
        assert len(client.tools()) == len(before)


def test_a_tools_changed_callback_may_close_the_client(make: MakeClient) -> None:
    closed = threading.Event()
    opened: list[McpClient] = []

    def close_on_change(tools: tuple[McpTool, ...]) -> None:
        opened[0].close()  # on the client's own loop: it must not wait for itself
        closed.set()

    with make(on_tools_changed=close_on_change) as client:
        opened.append(client)
        assert run_one(client, "grow", name="late") == "SUCCESS: added late"
        assert closed.wait(WAIT_FOR_MEETING)
        with pytest.raises(RuntimeError, match="is not open"):
            client.tools()
    for thread in threading.enumerate():  # the shutdown handed to a thread of its own ends
        if thread.name == "agentsm-mcp-close":
            thread.join(WAIT_FOR_MEETING)
            assert not thread.is_alive()


def test_a_removed_tool_fails_as_data(make: MakeClient) -> None:
    changed = threading.Event()
    with make(on_tools_changed=lambda tools: changed.set()) as client:
        assert run_one(client, "grow", name="brief") == "SUCCESS: added brief"
        assert changed.wait(WAIT_FOR_MEETING)
        registry = client.registry()  # an agent built now offers "brief"
        changed.clear()
        assert run_one(client, "shrink", name="brief") == "SUCCESS: removed brief"
        assert changed.wait(WAIT_FOR_MEETING)
        call = RunTool(ToolCall(id="c1", name="brief", arguments={"text": "x"}))
        observation = ToolRunner(registry).run_one(call).observation
    assert observation == "ERROR: McpToolGone: 'agentsm-test' no longer offers the tool 'brief'"


def test_closing_the_client_fails_calls_in_flight_and_after(make: MakeClient, signals: Signals) -> None:
    client = make().open()
    registry = client.registry()
    result: list[str] = []
    caller = threading.Thread(
        target=lambda: result.append(ToolRunner(registry).run_one(hang_call("z")).observation)
    )
    caller.start()
    signals.expect("started hang z")
    client.close()
    caller.join()
    assert result[0].startswith("ERROR: McpDisconnected: the MCP client")
    assert ToolRunner(registry).run_one(hang_call("y")).observation == (
        "ERROR: McpDisconnected: the MCP client 'agentsm-test' is not open"
    )


def hang_call(tag: str) -> RunTool:
    return RunTool(ToolCall(id=f"c-{tag}", name="hang", arguments={"tag": tag}))


def test_a_server_killed_mid_call_becomes_a_tool_failure(make: MakeClient, signals: Signals) -> None:
    with make() as client:
        registry = client.registry()
        result: list[str] = []
        caller = threading.Thread(
            target=lambda: result.append(ToolRunner(registry).run_one(hang_call("k")).observation)
        )
        caller.start()
        pid = int(signals.expect("started hang k").split()[-1])
        os.kill(pid, signal.SIGKILL)
        caller.join()
        assert result[0].startswith("ERROR: McpDisconnected: ")
        assert (
            ToolRunner(registry)
            .run_one(RunTool(ToolCall("c2", "add", {"a": 1, "b": 2})))
            .observation.startswith("ERROR: McpDisconnected: ")
        )


def test_a_server_that_cannot_start_raises_when_the_client_opens() -> None:
    client = McpClient.stdio("/nonexistent/mcp-server")
    with pytest.raises(McpConnectError, match="stdio server mcp-server"):
        client.open()
    assert not client.is_open


def test_an_unreachable_endpoint_raises_when_the_client_opens() -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(McpConnectError, match=f"http server http://127.0.0.1:{port}/mcp"):
        McpClient.http(f"http://127.0.0.1:{port}/mcp", connect_timeout=30).open()


def test_bad_options_are_reported_together() -> None:
    with pytest.raises(ValueError) as raised:
        McpClient.stdio("x", prefix="a b", needs_approval="rm", timeout=0)
    message = str(raised.value)
    assert "prefix" in message and "needs_approval" in message and "timeout" in message


def test_tools_need_an_open_client() -> None:
    with pytest.raises(RuntimeError, match="not open"):
        McpClient.stdio("x").tools()


async def test_a_client_opened_by_a_cancelled_async_with_is_closed_again(make_stdio: MakeClient) -> None:
    client = make_stdio()
    opened = threading.Event()
    closed = threading.Event()
    real_open, real_close = client.open, client.close

    def open_then_signal() -> McpClient:
        result = real_open()
        opened.set()
        return result

    def close_then_signal() -> None:
        real_close()
        closed.set()

    client.open = open_then_signal  # type: ignore[method-assign]  # watch the client's own methods
    client.close = close_then_signal  # type: ignore[method-assign]

    async def enter() -> None:
        async with client:
            raise AssertionError("cancelled before it was entered")

    task = asyncio.create_task(enter())
    await asyncio.sleep(0)  # let the task start opening (a scheduling point, not a wait for time)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(opened.wait, WAIT_FOR_MEETING)
    assert await asyncio.to_thread(closed.wait, WAIT_FOR_MEETING)
    assert not client.is_open


def test_http_headers_reach_the_server_and_never_a_repr_or_a_message(http_server: HttpServer) -> None:
    client = McpClient.http(http_server.url, headers={"X-Agent-Token": "t0ken-4-tests"})
    assert "t0ken" not in repr(client) and "t0ken" not in repr(client.target)
    with client:
        assert run_one(client, "header", name="X-Agent-Token") == "SUCCESS: t0ken-4-tests"
    assert client.target.redact("refused: t0ken-4-tests") == "refused: [redacted]"
