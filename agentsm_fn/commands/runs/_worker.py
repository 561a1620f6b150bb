"""``agentsm-runs worker``: serve queued and orphaned runs until SIGTERM (``durable.operations.worker``)."""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any

from agentsm_fn.durable.operations.worker import Outcome, WorkerSettings, serve
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.owners import this_owner
from agentsm_fn.durable.stores.protocol.queue import RunQueue

__all__: list[str] = []


def run_worker(
    store: RunQueue,
    durables: Sequence[Durable[Any, Any, Any]],
    settings: WorkerSettings,
    report: Callable[[Outcome], int],
) -> int:
    """Serve runs of ``durables`` until SIGTERM or SIGINT, then let the held runs finish or go back; 0."""

    def reported(run_id: str, outcome: Outcome) -> None:
        report(outcome)
        sys.stdout.flush()

    async def main() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, stop.set)
        names, most = ", ".join(durable.name for durable in durables), settings.concurrency
        print(f"agentsm-runs worker {this_owner()}: serving {names}, {most} at a time", flush=True)
        taken = await serve(store, durables, stop, settings, reported)
        print(f"agentsm-runs worker {this_owner()}: stopped; {taken} run(s) taken up", flush=True)
        return 0

    return asyncio.run(main())
