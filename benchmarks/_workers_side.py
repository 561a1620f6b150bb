"""Throughput of queued ReAct runs served by 1, 2 and 4 ``agentsm-runs worker`` processes on PostgreSQL.

For each count the workers start on an empty queue in a new database, each says it serves, then
the runs are enqueued (each announced by ``NOTIFY``) and the clock runs until every run finished.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from agentsm_fn.durable import RunStatus
from agentsm_fn.durable.stores.postgres import PostgresStore

ROOT = Path(__file__).resolve().parents[1]
TARGET = "benchmarks/_react_durable.py:REACT"


def _workers(url: str, count: int, base: str) -> list[subprocess.Popen[str]]:
    env = {**os.environ, "BENCH_AIMOCK_URL": base, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", url, "worker", TARGET]
    started = [
        subprocess.Popen(
            [*command, "--concurrency", "50", "--poll", "5"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(count)
    ]
    for process in started:
        assert process.stdout is not None and "serving" in process.stdout.readline(), "a worker did not start"
    return started


def throughput(new_database: Callable[[], str], base: str, runs: int, counts: tuple[int, ...]) -> list[str]:
    """Runs per second with each number of workers; one printed row each."""
    from _react_durable import REACT, memory  # noqa: PLC0415  # builds an agent: only when measured

    rates = []
    for count in counts:
        url = new_database()
        store = PostgresStore.open(url).unwrap()
        workers = _workers(url, count, base)
        try:
            started = time.perf_counter()
            for index in range(runs):
                REACT.enqueue(store, memory(), run_id=f"r{index}").unwrap()
            deadline = time.monotonic() + 600
            while sum(r.status is RunStatus.FINISHED for r in store.runs().unwrap()) < runs:
                assert time.monotonic() < deadline, "the workers did not finish the runs"
                time.sleep(0.02)
            rates.append(runs / (time.perf_counter() - started))
        finally:
            for process in workers:
                process.send_signal(signal.SIGTERM)
            for process in workers:
                process.wait(timeout=60)
            store.close()
        print(f"{runs} ReAct runs against aimock, {count} worker(s) on PostgreSQL: {rates[-1]:.0f} runs/s")
    scaling = ", ".join(f"{n}: {rate / rates[0]:.2f}x" for n, rate in zip(counts, rates, strict=True))
    return [f"workers on PostgreSQL, throughput against 1 worker: {scaling}"]
