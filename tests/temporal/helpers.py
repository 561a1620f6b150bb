"""Shared by the Temporal tests: unique task queues, bounded polls, worker subprocesses."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from temporalio.worker import Worker

from agentsm_fn.temporal import PendingEffect, TemporalRun

ROOT = Path(__file__).resolve().parents[2]


def queue() -> str:
    return f"q-{uuid.uuid4().hex[:8]}"


async def wait_for_pending(run: TemporalRun[Any, Any]) -> PendingEffect:
    for _ in range(500):  # a bounded poll: the run reaches its approval within a few workflow tasks
        found = await run.pending()
        if found is not None and found.awaited:
            return found
        await asyncio.sleep(0.02)
    raise AssertionError("the run never waited for an answer")


def wait_for(paths: list[Path], process: subprocess.Popen[bytes]) -> None:
    for _ in range(3000):  # a bounded poll (the files appear within seconds)
        if all(p.exists() for p in paths):
            return
        assert process.poll() is None, "the worker died"
        time.sleep(0.01)
    raise AssertionError(f"never appeared: {[p.name for p in paths if not p.exists()]}")


def child_env() -> dict[str, str]:
    """This process's environment, with the repository first on the child's PYTHONPATH."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def slow_arg(argv: Sequence[str], index: int) -> frozenset[str]:
    """The comma-separated SLOW argument at ``argv[index]`` (none if absent), as a set."""
    return frozenset(filter(None, (argv[index] if len(argv) > index else "").split(",")))


async def serve_until_killed(worker: Worker, directory: Path) -> None:
    """Run ``worker``, tell the :class:`WorkerPool` it is ready (``DIR/ready-<pid>``), serve until killed."""
    async with worker:
        (directory / f"ready-{os.getpid()}").write_text("ready", encoding="utf-8")
        await asyncio.Event().wait()  # until killed


class WorkerPool:
    """Worker subprocesses of one test, each killed at the end if still alive.

    Each runs ``python -m MODULE TARGET QUEUE DIR ARGS...`` and is ready once it wrote ``DIR/ready-<pid>``.
    """

    def __init__(self, target: str, task_queue: str, directory: Path, module: str) -> None:
        self.target, self.task_queue, self.directory, self.module = target, task_queue, directory, module
        self.started: list[subprocess.Popen[bytes]] = []

    def spawn(self, *args: str) -> subprocess.Popen[bytes]:
        """Start a worker with ``args`` after the common ones; return once it is ready."""
        command = [sys.executable, "-m", self.module, self.target, self.task_queue, str(self.directory)]
        process = subprocess.Popen([*command, *args], cwd=ROOT, env=child_env())
        self.started.append(process)
        wait_for([self.directory / f"ready-{process.pid}"], process)
        return process

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.wait()


class Workers(WorkerPool):
    """Crash-test workers (``tests.temporal.worker_process`` or a module of the same arguments)."""

    def __init__(
        self, target: str, task_queue: str, directory: Path, module: str = "tests.temporal.worker_process"
    ) -> None:
        super().__init__(target, task_queue, directory, module)

    def start(self, slow: tuple[str, ...] = ()) -> subprocess.Popen[bytes]:
        return self.spawn(",".join(slow))
