"""Provider overhead: whole ReAct agent runs through the library vs raw httpx, against aimock on loopback.

Each run is one agent conversation with 3 tool calls (4 LLM calls: three tool-call
turns and a final answer). The baseline sends the same 4 Chat Completions requests
per run with a bare ``httpx.AsyncClient`` (same pool size, same server, same
process) and parses each reply with ``json.loads``. Both sides run 200 runs at 1,
10 and 100 concurrent async runs; each side is measured ``--repeat`` times,
interleaved, and the best time is kept. Target: overhead ratio <= 1.10 at 100.

    bash scripts/aimock.sh && python benchmarks/providers.py [--runs 200] [--provider openai]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import httpx

from agentsm_fn.agents.react.builder import AgentBuilder
from agentsm_fn.agents.react.result import Completed
from agentsm_fn.providers import HttpProvider, anthropic_provider, ollama_provider, openai_provider

ROOT = Path(__file__).resolve().parents[1]
TASK = "Do three lookups please"
SCHEMA = {"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}
TOOLS = [
    {"type": "function", "function": {"name": "lookup", "description": "Look a key up", "parameters": SCHEMA}}
]


def lookup(key: str) -> str:
    return f"value of {key}"


async def alookup(key: str) -> str:
    """The tool as a coroutine: async runs call it on the loop (a sync tool would take a thread hop)."""
    return lookup(key)


def start_aimock() -> tuple[subprocess.Popen[bytes], str]:
    prefix = Path(os.environ.get("AIMOCK_PREFIX", ROOT / ".cache" / "aimock"))
    cli = prefix / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js"
    node = shutil.which("node")
    if node is None or not cli.is_file():
        sys.exit("aimock is not installed: run `bash scripts/aimock.sh` first")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    fixtures = ROOT / "tests" / "fixtures" / "aimock"
    process = subprocess.Popen(
        [
            node,
            str(cli),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "-f",
            str(fixtures),
            "--log-level",
            "silent",
            "--journal-max",
            "100",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return process, base
        except httpx.HTTPError:
            time.sleep(0.05)
    process.kill()
    sys.exit("aimock did not start")


async def raw_run(client: httpx.AsyncClient, url: str) -> None:
    """The same 4 requests with bare httpx: append each tool call and its result, until the answer."""
    messages: list[dict[str, object]] = [{"role": "user", "content": TASK}]
    for _ in range(10):
        body = {"model": "bench", "messages": messages, "tools": TOOLS}
        response = await client.post(
            url, content=json.dumps(body), headers={"content-type": "application/json"}
        )
        message = response.json()["choices"][0]["message"]
        calls = message.get("tool_calls") or []
        if not calls:
            assert message["content"] == "Looked up a, b and c."
            return
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        for call in calls:
            key = json.loads(call["function"]["arguments"])["key"]
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": lookup(key)})
    raise AssertionError("the conversation did not end")


def make_provider(kind: str, base: str, client: httpx.AsyncClient) -> HttpProvider:
    if kind == "anthropic":
        return anthropic_provider("bench", api_key="bench", base_url=base, async_client=client, env={})
    if kind == "ollama":
        return ollama_provider("bench", base_url=base, async_client=client, env={})
    return openai_provider("bench", api_key="bench", base_url=f"{base}/v1", async_client=client, env={})


async def library_run(provider: HttpProvider) -> None:
    agent = (
        AgentBuilder.new(TASK).llm(provider).tool("lookup", "Look a key up", SCHEMA, alookup).build().unwrap()
    )
    result = (await agent.arun()).unwrap()
    assert isinstance(result, Completed) and result.answer == "Looked up a, b and c.", result


async def timed(runs: int, concurrency: int, one: Callable[[], Awaitable[None]]) -> float:
    queue = iter(range(runs))

    async def worker() -> None:
        for _ in queue:
            await one()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


async def measure(
    base: str, kind: str, runs: int, levels: Sequence[int], repeat: int
) -> list[tuple[int, float, float]]:
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
    rows: list[tuple[int, float, float]] = []
    async with httpx.AsyncClient(limits=limits) as raw_client, httpx.AsyncClient(limits=limits) as lib_client:
        provider = make_provider(kind, base, lib_client)
        url = f"{base}/v1/chat/completions"
        await timed(100, 10, lambda: raw_run(raw_client, url))  # warm-up: pools, JIT of the server
        await timed(100, 10, lambda: library_run(provider))
        for level in levels:
            raw_best = lib_best = float("inf")
            for _ in range(repeat):
                raw_best = min(raw_best, await timed(runs, level, lambda: raw_run(raw_client, url)))
                lib_best = min(lib_best, await timed(runs, level, lambda: library_run(provider)))
            rows.append((level, raw_best, lib_best))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--provider", choices=["openai", "anthropic", "ollama"], default="openai")
    args = parser.parse_args(argv)
    process, base = start_aimock()
    try:
        rows = asyncio.run(measure(base, args.provider, args.runs, (1, 10, 100), args.repeat))
    finally:
        process.terminate()
        process.wait(timeout=10)
    print(
        f"{args.runs} ReAct runs x 4 LLM calls (3 tool calls) via {args.provider}, aimock on loopback,",
        end=" ",
    )
    print(f"best of {args.repeat}")
    print(f"{'concurrency':>11}  {'raw runs/s':>10}  {'library runs/s':>14}  {'overhead ratio':>14}")
    for level, raw, lib in rows:
        print(f"{level:>11}  {args.runs / raw:>10.1f}  {args.runs / lib:>14.1f}  {lib / raw:>14.3f}")
    level, raw, lib = rows[-1]
    verdict = "meets" if lib / raw <= 1.10 else "misses"
    print(f"overhead ratio at {level} concurrent runs: {lib / raw:.3f} ({verdict} the <= 1.10 target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
