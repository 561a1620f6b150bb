"""A worker process for the crash test: runs the orders machine until it is killed.

    python -m tests.temporal.worker_process TARGET QUEUE DIR [SLOW,...]

Writes ``DIR/ready-<pid>`` once it polls; SLOW names effects to block in ("Ship-o1").
Short heartbeats and a short sticky timeout make a second worker take over fast.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from agentsm_fn.temporal import EffectOptions, TemporalMachine, connect, machine_worker
from tests.temporal.helpers import serve_until_killed, slow_arg
from tests.temporal.machines import ORDERS, Charge, Ship, order_performers

SPEC = TemporalMachine(
    machine=ORDERS,
    options={
        Charge: EffectOptions(timeout=30.0, heartbeat=1.0),
        Ship: EffectOptions(timeout=30.0, heartbeat=1.0, attempts=5, backoff=0.2),
    },
)


async def serve(target: str, task_queue: str, directory: Path, slow: frozenset[str]) -> None:
    client = await connect(target)
    worker = machine_worker(
        client,
        task_queue,
        [SPEC],
        order_performers(directory, slow),
        passed_through=["tests"],
        sticky_timeout=1.0,
    )
    await serve_until_killed(worker, directory)


if __name__ == "__main__":  # the sandbox may import this module: only a script run serves
    target, task_queue, directory = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    slow = slow_arg(sys.argv, 4)
    asyncio.run(serve(target, task_queue, directory, slow))
