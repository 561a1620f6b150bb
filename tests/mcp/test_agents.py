"""Both built-in agents with an MCP server's tools: whole runs with a scripted LLM, on our test server."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Iterator

import pytest

from agentsm_fn.agents.plan_execute import PlanExecutePolicy
from agentsm_fn.agents.react import (
    Approved,
    HumanApprovalRequest,
    ReactCompleted,
    Rejected,
    Suspended,
)
from agentsm_fn.agents.react.outcomes import ApprovalDecision
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.mcp import McpClient
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import AsyncScriptedLlm, ScriptedLlm
from tests.mcp.conftest import WAIT, MakeClient, Signals


@pytest.fixture
def client(make_stdio: MakeClient) -> Iterator[McpClient]:
    with make_stdio(prefix="t", needs_approval={"echo"}, timeout=WAIT) as opened:
        yield opened


def calls(*made: tuple[str, dict[str, object]]) -> LlmReply:
    return LlmReply(tool_calls=tuple(ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(made)))


def answer(text: str) -> LlmReply:
    return LlmReply(content=text)


def completed(result: object) -> ReactCompleted:
    assert isinstance(result, ReactCompleted), result
    return result


def observations(done: ReactCompleted) -> list[str]:
    return [entry.observation for entry in done.snapshot.memory.history]


def test_a_react_run_calls_an_mcp_tool_and_reads_its_result(client: McpClient) -> None:
    llm = ScriptedLlm([calls(("t_add", {"a": 19, "b": 23})), answer("19 + 23 = 42, says the server")])
    agent = AgentBuilder.new("What is 19 + 23?").llm(llm).tools(*client.tools()).build().unwrap()
    done = completed(agent.run().unwrap())
    assert done.answer == "19 + 23 = 42, says the server"
    assert observations(done) == ["SUCCESS: 42"]
    offered = {spec.name for spec in llm.requests[0].tools}
    assert {"t_add", "t_hang", "t_weather"} <= offered


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_parallel_calls_in_one_reply_run_at_once(client: McpClient, asynchronous: bool) -> None:
    reply = calls(("t_meet", {"group": "p", "size": 2}), ("t_meet", {"group": "p", "size": 2}))
    builder = AgentBuilder.new("Meet twice").tools(*client.tools())
    if asynchronous:
        agent = builder.llm(AsyncScriptedLlm([reply, answer("the two calls met at once")])).build().unwrap()
        done = completed(asyncio.run(agent.arun()).unwrap())
    else:
        done = completed(
            builder.llm(ScriptedLlm([reply, answer("the two calls met at once")]))
            .build()
            .unwrap()
            .run()
            .unwrap()
        )
    assert observations(done) == ["SUCCESS: p: met 2", "SUCCESS: p: met 2"]  # one at a time would time out


def test_a_blacklisted_mcp_tool_is_neither_offered_nor_run(client: McpClient, signals: Signals) -> None:
    llm = ScriptedLlm([calls(("t_echo", {"text": "forbidden"})), answer("the echo tool is forbidden")])
    agent = AgentBuilder.new("Echo").llm(llm).tools(*client.tools()).blacklist_tool("t_echo").build().unwrap()
    done = completed(agent.run().unwrap())
    assert "t_echo" not in {spec.name for spec in llm.requests[0].tools}
    assert done.answer == "the echo tool is forbidden"
    assert signals.seen == []  # the server never saw a call


@pytest.mark.parametrize(("decision", "ran"), [(Approved(), True), (Rejected("no"), False)])
def test_needs_approval_asks_the_approver_before_the_call(
    client: McpClient, signals: Signals, decision: ApprovalDecision, ran: bool
) -> None:
    asked: list[HumanApprovalRequest] = []

    def approver(request: HumanApprovalRequest) -> ApprovalDecision:
        asked.append(request)
        return decision

    llm = ScriptedLlm([calls(("t_echo", {"text": "approved?"})), answer("the human has decided")])
    agent = AgentBuilder.new("Echo").llm(llm).tools(*client.tools()).approve_with(approver).build().unwrap()
    done = completed(agent.run().unwrap())
    assert [request.tool_call.name for request in asked] == ["t_echo"]
    assert asked[0].reason == "tool 't_echo' is marked needs_approval"
    if ran:
        assert signals.expect("called echo") == "called echo approved?"
        assert observations(done) == ["SUCCESS: approved?"]
    else:
        assert observations(done)[0].startswith("ERROR: ") and signals.seen == []


def test_a_suspended_run_resumes_from_json_and_then_calls_the_server(
    client: McpClient, signals: Signals
) -> None:
    llm = ScriptedLlm([calls(("t_echo", {"text": "later"})), answer("the text was echoed back")])
    agent = AgentBuilder.new("Echo").llm(llm).tools(*client.tools()).build().unwrap()
    suspended = agent.run().unwrap()
    assert isinstance(suspended, Suspended) and signals.seen == []
    stored = Suspended.from_json(suspended.to_json()).unwrap()
    done = completed(agent.resume(stored, Approved()).unwrap())
    assert done.answer == "the text was echoed back" and signals.expect("called echo") == "called echo later"


def test_a_server_killed_mid_call_is_a_tool_failure_and_the_run_goes_on(
    client: McpClient, signals: Signals
) -> None:
    def kill_when_the_call_starts() -> None:
        os.kill(int(signals.expect("started hang k").split()[-1]), signal.SIGKILL)

    killer = threading.Thread(target=kill_when_the_call_starts)
    killer.start()
    llm = ScriptedLlm(
        [
            calls(("t_hang", {"tag": "k"})),
            calls(("t_add", {"a": 1, "b": 1})),
            answer("the server went away, gave up"),
        ]
    )
    done = completed(AgentBuilder.new("Hang").llm(llm).tools(*client.tools()).build().unwrap().run().unwrap())
    killer.join()
    first, second = observations(done)
    assert first.startswith("ERROR: McpDisconnected: stdio server python closed the connection")
    assert second.startswith("ERROR: McpDisconnected: ")
    assert done.answer == "the server went away, gave up"


async def test_cancelling_a_run_cancels_its_call_on_the_server(client: McpClient, signals: Signals) -> None:
    llm = AsyncScriptedLlm([calls(("t_hang", {"tag": "r"})), answer("never reached in this test")])
    agent = AgentBuilder.new("Hang").llm(llm).tools(*client.tools()).build().unwrap()
    run = asyncio.create_task(agent.arun())
    await asyncio.to_thread(signals.expect, "started hang r")
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert await asyncio.to_thread(signals.expect, "cancelled hang r") == "cancelled hang r"


def test_many_concurrent_runs_share_one_client(client: McpClient) -> None:
    def agent_for(i: int, llm: ScriptedLlm | AsyncScriptedLlm) -> AgentBuilder:
        return AgentBuilder.new(f"run {i}").llm(llm).tools(*client.tools()).approve_with(lambda r: Approved())

    def script(i: int) -> list[LlmReply]:
        return [calls(("t_echo", {"text": f"run {i}"})), answer(f"run {i} is done, echoed")]

    async def async_runs() -> list[str]:
        agents = [agent_for(i, AsyncScriptedLlm(script(i))).build().unwrap() for i in range(12)]
        results = await asyncio.gather(*(agent.arun() for agent in agents))
        return [observations(completed(result.unwrap()))[0] for result in results]

    sync_results: dict[int, str] = {}

    def sync_run(i: int) -> None:
        done = completed(agent_for(i, ScriptedLlm(script(i))).build().unwrap().run().unwrap())
        sync_results[i] = observations(done)[0]

    threads = [threading.Thread(target=sync_run, args=(i,)) for i in range(100, 104)]
    for thread in threads:
        thread.start()
    assert asyncio.run(async_runs()) == [f"SUCCESS: run {i}" for i in range(12)]
    for thread in threads:
        thread.join()
    assert sync_results == {i: f"SUCCESS: run {i}" for i in range(100, 104)}


def plan(tool: str) -> LlmReply:
    return LlmReply(
        content=f'{{"goal": "add", "required_capabilities": ["{tool}"], "initial_steps": ["add"]}}'
    )


@pytest.mark.parametrize("asynchronous", [False, True], ids=["run", "arun"])
def test_the_plan_and_execute_agent_runs_mcp_tools(client: McpClient, asynchronous: bool) -> None:
    replies = [plan("t_add"), calls(("t_add", {"a": 2, "b": 40})), answer("The sum is 42.")]
    llm = AsyncScriptedLlm(replies) if asynchronous else ScriptedLlm(replies)
    agent = AgentFSM(
        provider=llm, tools=client.registry(), policy=PlanExecutePolicy(forbidden_tools={"t_hang"})
    )
    result = asyncio.run(agent.arun("Add 2 and 40")) if asynchronous else agent.run("Add 2 and 40")
    done = result.unwrap()
    assert done.result.answer == "The sum is 42."
    assert [(o.tool, o.content, o.is_error) for o in done.fsm.memory.observations] == [("t_add", "42", False)]
