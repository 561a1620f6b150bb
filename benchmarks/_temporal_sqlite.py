"""The durable SQLite store's side of benchmarks/temporal.py: the same ReAct runs, journaled to SQLite.

Every run of ``benchmarks/temporal.py``'s workload (3 tool calls, 4 LLM calls) runs in this
process with ``Durable.astart`` on one ``SqliteStore`` file, all at once on asyncio: each effect
outcome is committed before the machine sees it, as on Temporal, but without a server or workers.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from contextlib import closing
from pathlib import Path

from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.shell.react_agent import Agent


async def sqlite_runs(agent: Agent, runs: int) -> float:
    """Seconds for ``runs`` durable runs of ``agent`` started at once on one SQLite store."""
    durable = Durable(name="benchmarks.temporal:AGENT", machine=agent.machine, shell=agent.shell)
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "runs.db").unwrap()) as store,
    ):
        began = time.perf_counter()
        done = await asyncio.gather(*(durable.astart(store, agent.memory) for _ in range(runs)))
        elapsed = time.perf_counter() - began
    assert all(result.unwrap().finished for result in done)
    return elapsed
