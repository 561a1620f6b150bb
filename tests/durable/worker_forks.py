"""A fork server for the crash test: imports the library once, then forks worker processes on request.

python -m tests.durable.worker_forks DB

Reads one command a line on stdin: ``start`` forks a worker process that serves the payments
machine on DB (``durable.operations.worker.serve``, the loop ``agentsm-runs worker`` runs) and prints its
pid; ``kill PID`` kills it with SIGKILL and reaps it (a dead owner's runs are orphaned only once
its pid is gone) and prints ``killed``; ``stop`` sends every worker SIGTERM, waits for them,
prints ``stopped`` and exits. A fork costs milliseconds where a new interpreter costs a second.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import agentsm_fn.durable.stores.postgres  # noqa: F401  # imported once, before the forks: they start at once
from agentsm_fn.durable import open_store
from agentsm_fn.durable.operations.worker import WorkerSettings, serve
from agentsm_fn.durable.stores.protocol.queue import RunQueue
from tests.durable.payments import DURABLE_PAYMENTS


def _worker(db: str) -> None:
    store = open_store(db).unwrap()
    assert isinstance(store, RunQueue)

    async def run() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        await serve(store, [DURABLE_PAYMENTS], stop, WorkerSettings(concurrency=4, poll=0.02))

    asyncio.run(run())
    store.close()


def main(argv: list[str]) -> int:
    (db,) = argv
    workers: set[int] = set()
    for line in sys.stdin:
        command, *rest = line.split()
        if command == "start":
            pid = os.fork()
            if pid == 0:  # the worker: serve until SIGTERM, then leave without running the parent's cleanup
                _worker(db)
                os._exit(0)
            workers.add(pid)
            print(pid, flush=True)
        elif command == "kill":
            pid = int(rest[0])
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            workers.discard(pid)
            print("killed", flush=True)
        elif command == "stop":
            for pid in workers:
                os.kill(pid, signal.SIGTERM)
            codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in workers]
            print("stopped", *codes, flush=True)
            return 0
    return 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
