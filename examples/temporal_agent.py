"""The demo ReAct agent on Temporal: a local server, two worker processes, several runs.

    python examples/temporal_agent.py                      # all in one: server, 2 workers, 4 runs
    python examples/temporal_agent.py --server HOST:PORT   # against your server (2 workers started here)

or by hand, in three terminals, against ``.venv/bin/temporal server start-dev``:

    python examples/temporal_agent.py worker --server 127.0.0.1:7233
    python examples/temporal_agent.py worker --server 127.0.0.1:7233
    python examples/temporal_agent.py start --server 127.0.0.1:7233 --runs 4

The agent (search, calculator and weather tools, offline) runs as a Temporal workflow:
every LLM call and tool call is an activity that either worker may perform; the script
prints each run's answer and which worker process performed its activities. The LLM
is scripted by conversation turn, so any worker gives the same reply to the same
request (a retried LLM call returns what the first attempt would have).
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from multi_tool_agent import calculator, search, weather
from returns.result import Failure, Success

from agentsm_fn.agents.react import AgentConfig
from agentsm_fn.llm import AssistantMessage, LlmReply, LlmRequest, ToolCall
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.temporal import connect, machine_worker, react_on_temporal, start_run
from agentsm_fn.temporal.devserver import dev_server

TASK_QUEUE = "agentsm-demo"
TASK = "What is 15% of the population of Paris, and what is the weather there today?"


class TurnScript:
    """An offline LLM: the reply for a conversation with n assistant turns is the n-th one."""

    REPLIES = (
        LlmReply(tool_calls=(ToolCall("c1", "search", {"query": "population of Paris"}),)),
        LlmReply(tool_calls=(ToolCall("c2", "calculator", {"expression": "2102650 * 0.15"}),)),
        LlmReply(tool_calls=(ToolCall("c3", "weather", {"city": "Paris"}),)),
        LlmReply(
            content="15% of Paris's 2,102,650 inhabitants is about 315,398 people; today 18°C, light rain."
        ),
    )

    def complete(self, request: LlmRequest) -> LlmReply:
        turn = sum(isinstance(m, AssistantMessage) for m in request.messages)
        return self.REPLIES[min(turn, len(self.REPLIES) - 1)]


def demo_agent() -> Agent:
    config = AgentConfig(max_steps=8, reflect_every_n_steps=0)
    return (
        AgentBuilder.new(TASK)
        .llm(TurnScript())
        .tools(search, calculator, weather)
        .config(config)
        .build()
        .unwrap()
    )


async def work(server: str, ready: Path | None) -> None:
    """One worker: runs the agent's workflow and performs its activities until stopped."""
    agent = demo_agent()
    client = await connect(server)
    async with machine_worker(client, TASK_QUEUE, [react_on_temporal(agent)], agent.shell().performers):
        print(f"worker {os.getpid()} polls {TASK_QUEUE!r} on {server}", flush=True)
        if ready is not None:
            ready.write_text(str(os.getpid()), encoding="utf-8")
        await asyncio.Event().wait()


async def start(server: str, runs: int) -> int:
    """Start ``runs`` runs of the agent at once; print each answer and who performed its activities."""
    agent = demo_agent()
    spec = react_on_temporal(agent)
    client = await connect(server)
    prefix = uuid.uuid4().hex[:6]
    started = [
        await start_run(client, spec, agent.memory, run_id=f"demo-{prefix}-{n}", task_queue=TASK_QUEUE)
        for n in range(1, runs + 1)
    ]
    failures = 0
    for run in started:
        result = await run.result()
        history = await run.handle.fetch_history()
        workers = collections.Counter(
            e.activity_task_started_event_attributes.identity.split("@")[0]
            for e in history.events
            if e.HasField("activity_task_started_event_attributes")
        )
        by_worker = ", ".join(f"worker {pid}: {n}" for pid, n in sorted(workers.items()))
        match result:
            case Success(done):
                print(f"{run.run_id}: {done.state.name}, {sum(workers.values())} activities ({by_worker})")
                print(f"  answer: {done.memory.final_answer}")
            case Failure(stopped):
                failures += 1
                print(f"{run.run_id}: stopped: {stopped.describe()}")
    return 1 if failures else 0


@contextmanager
def two_workers(server: str) -> Iterator[None]:
    """Two worker processes of this script, stopped on exit."""
    processes: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as scratch:
        try:
            for n in range(2):
                ready = Path(scratch) / f"ready-{n}"
                command = [sys.executable, __file__, "worker", "--server", server, "--ready", str(ready)]
                processes.append(subprocess.Popen(command))
                for _ in range(3000):  # until it polls (a bounded wait)
                    if ready.exists() or processes[-1].poll() is not None:
                        break
                    time.sleep(0.01)
                if not ready.exists():
                    raise RuntimeError("a worker did not start")
            yield
        finally:
            for process in processes:
                process.terminate()
                process.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("role", nargs="?", choices=("all", "worker", "start"), default="all")
    parser.add_argument("--server", help="a Temporal server's host:port (default: start a local one)")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--ready", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "worker":
        if not args.server:
            parser.error("a worker needs --server")
        asyncio.run(work(args.server, args.ready))
        return 0
    if args.role == "start":
        if not args.server:
            parser.error("start needs --server")
        return asyncio.run(start(args.server, args.runs))
    if args.server:
        with two_workers(args.server):
            return asyncio.run(start(args.server, args.runs))
    with dev_server() as server:
        print(f"local Temporal server on {server}", flush=True)
        with two_workers(server):
            return asyncio.run(start(server, args.runs))


if __name__ == "__main__":  # worker processes run this file too: only a script run starts anything
    raise SystemExit(main())
