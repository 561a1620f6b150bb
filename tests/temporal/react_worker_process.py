"""A worker process for the ReAct crash test: the ReAct agent until it is killed.

    python -m tests.temporal.react_worker_process TARGET QUEUE DIR [SLOW,...]

Tools log every execution with its idempotency key to ``DIR/calls.log``; for the runs
named in SLOW ("lookup-<run id>", "book-<run id>") a tool first writes
``DIR/started-<tool>-<run id>`` and then blocks (the test kills the worker there).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agentsm_fn.agents.react import AgentConfig, AgentMemory, Event, RunTool, RunToolBatch, State
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell import effect_key
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.temporal import EffectOptions, TemporalMachine, connect, machine_worker, react_on_temporal
from agentsm_fn.tools import Tool, tool
from tests.temporal.agents import ConversationLlm
from tests.temporal.helpers import serve_until_killed, slow_arg
from tests.temporal.machines import block_if_slow, record_call

SHORT = EffectOptions(timeout=30.0, heartbeat=1.0, attempts=5, backoff=0.2, max_backoff=0.2)


def tools(directory: Path, slow: frozenset[str]) -> tuple[Tool, Tool]:
    def record(name: str) -> None:
        record_call(directory, name)
        key = effect_key()
        block_if_slow(directory, slow, name, "" if key is None else key.run_id)

    @tool(timeout=30.0, retry_safe=True)
    def lookup(query: str) -> str:
        """Look flights up (a read: retry-safe).

        Args:
            query: What to look for.
        """
        record("lookup")
        return f"flights for {query}: AF1, BA2"

    @tool(timeout=30.0)
    def book(flight: str) -> str:
        """Book a flight (not retry-safe: booking twice costs twice).

        Args:
            flight: The flight number.
        """
        record("book")
        return f"booked {flight}"

    return lookup, book


def agent(directory: Path, slow: frozenset[str] = frozenset()) -> Agent:
    replies = [
        LlmReply(tool_calls=(ToolCall("c1", "lookup", {"query": "Paris"}),)),
        LlmReply(tool_calls=(ToolCall("c2", "book", {"flight": "AF1"}),)),
        LlmReply(content="I looked the flights up and booked AF1 for you, as you asked."),
    ]
    config = AgentConfig(max_steps=8, reflect_every_n_steps=0)
    builder = AgentBuilder.new("Book me a flight to Paris").llm(ConversationLlm(replies))
    return builder.tools(*tools(directory, slow)).config(config).build().unwrap()


def spec(directory: Path) -> TemporalMachine[State, Event, AgentMemory]:
    """The agent's machine with short tool heartbeats (a dead worker is noticed within a second)."""
    base = react_on_temporal(agent(directory))
    return TemporalMachine(
        machine=base.machine, options={RunTool: SHORT, RunToolBatch: SHORT}, awaited=base.awaited
    )


async def serve(target: str, task_queue: str, directory: Path, slow: frozenset[str]) -> None:
    client = await connect(target)
    worked = agent(directory, slow)
    worker = machine_worker(
        client, task_queue, [spec(directory)], worked.shell().performers, sticky_timeout=1.0
    )
    await serve_until_killed(worker, directory)


if __name__ == "__main__":
    target, task_queue, directory = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    slow = slow_arg(sys.argv, 4)
    asyncio.run(serve(target, task_queue, directory, slow))
