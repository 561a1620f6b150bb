"""Concurrent async ReAct runs against aimock: in memory, and durable on one SQLite store (group commit)."""

from __future__ import annotations

import tempfile
from contextlib import closing
from pathlib import Path
from types import ModuleType
from typing import Any

from agentsm_fn.durable import Durable, SqliteStore


async def concurrent_react(providers: ModuleType, base: str, runs: int, concurrency: int, rounds: int) -> str:
    import httpx  # noqa: PLC0415 - only this part needs a client

    from agentsm_fn.shell.react_agent import AgentBuilder  # noqa: PLC0415

    async with httpx.AsyncClient(
        limits=httpx.Limits(max_connections=100, max_keepalive_connections=100)
    ) as client:
        provider = providers.make_provider("openai", base, client)

        def agent() -> Any:
            return (
                AgentBuilder.new(providers.TASK)
                .llm(provider)
                .tool("lookup", "Look a key up", providers.SCHEMA, providers.alookup)
                .build()
                .unwrap()
            )

        async def memory_run() -> None:
            assert (await agent().arun()).unwrap().answer == providers.ANSWER

        with (
            tempfile.TemporaryDirectory() as folder,
            closing(SqliteStore.open(Path(folder) / "react.db").unwrap()) as store,
        ):

            async def durable_run() -> None:
                built = agent()
                durable = Durable(name="bench:REACT", machine=built.machine, shell=built.shell)
                done = (await durable.astart(store, built.memory)).unwrap()
                assert done.finished and done.snapshot.memory.final_answer == providers.ANSWER

            mem, dur = 0.0, 0.0
            for _ in range(rounds):
                mem = max(mem, runs / await providers.timed(runs, concurrency, memory_run))
                dur = max(dur, runs / await providers.timed(runs, concurrency, durable_run))
    print(
        f"{runs} ReAct runs, {concurrency} concurrent, aimock: in memory {mem:.0f} runs/s, "
        f"durable {dur:.0f} runs/s"
    )
    ratio = dur / mem
    return f"durable / in-memory throughput at {concurrency} concurrent runs = {ratio:.2f}x (target >= 0.8)"
