"""A real server for the tests: uvicorn on 127.0.0.1 on a free port, in a thread, stopped after."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from agentsm_fn.durable.stores.sqlite import SqliteStore
from tests.durable.machines import DURABLE_ORDERS, Order

STARTUP_TIMEOUT = 30.0


class _Server(uvicorn.Server):
    """uvicorn's server that says when it listens (an event, so no test polls)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None

    async def startup(self, sockets: list[object] | None = None) -> None:  # type: ignore[override]  # uvicorn's sockets are socket.socket
        await super().startup(sockets)  # type: ignore[arg-type]  # as above
        self.loop = asyncio.get_running_loop()
        self.listening.set()


LASTING = frozenset({"Server.serve", "_shutdown_watcher"})
"""The tasks a serving server always has: uvicorn's own, and sse-starlette's watch for the server's stop."""


def _task_name(task: asyncio.Task[object]) -> str:
    coroutine = task.get_coro()
    return str(getattr(coroutine, "__qualname__", coroutine))


async def _held(timeout: float) -> list[str]:
    """The server's tasks (but :data:`LASTING`) still alive once all end, or ``timeout`` seconds passed."""
    here = asyncio.current_task()
    deadline = asyncio.get_running_loop().time() + timeout

    def alive() -> set[asyncio.Task[object]]:
        tasks = asyncio.all_tasks()
        return {
            task for task in tasks if task is not here and not task.done() and _task_name(task) not in LASTING
        }

    while (tasks := alive()) and (left := deadline - asyncio.get_running_loop().time()) > 0:
        await asyncio.wait(tasks, timeout=left)  # wakes when they end: no polling
    return sorted(_task_name(task) for task in alive())


class Live:
    """A server serving in a thread of this process: its base URL, and the tasks it holds."""

    def __init__(self, server: _Server, url: str) -> None:
        self.server, self.url = server, url

    def held(self, timeout: float = STARTUP_TIMEOUT) -> list[str]:
        """The tasks the server still holds once every request it serves has ended (each task's coroutine).

        Waits, on the server's loop, until its tasks but :data:`LASTING` end, at most ``timeout`` seconds.
        """
        assert self.server.loop is not None
        return asyncio.run_coroutine_threadsafe(_held(timeout), self.server.loop).result(timeout + 5)


@contextmanager
def serving_live(app: ASGIApp) -> Iterator[Live]:
    """Serve ``app`` on 127.0.0.1 (a free port) while the block runs."""
    server = _Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert server.listening.wait(STARTUP_TIMEOUT), "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield Live(server, f"http://127.0.0.1:{port}")
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT)
        assert not thread.is_alive(), "uvicorn did not stop"


@contextmanager
def serving(app: ASGIApp) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) while the block runs; its base URL."""
    with serving_live(app) as live:
        yield live.url


def orders_store(path: Path, finished: int = 2, waiting: int = 1) -> SqliteStore:
    """A store with finished and waiting runs of the order machine (runs ``done-N``, ``wait-N``)."""
    store = SqliteStore.open(path).unwrap()
    for n in range(finished):
        DURABLE_ORDERS.start(store, Order(items=2), run_id=f"done-{n}").unwrap()
    for n in range(waiting):
        DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id=f"wait-{n}").unwrap()
    return store


ROOT = Path(__file__).resolve().parents[2]


def serve_command(db: Path, *args: str) -> list[str]:
    """``agentsm-runs --db DB serve ARGS`` as a command line of this Python."""
    return [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", str(db), "serve", *args]


def examples_env() -> dict[str, str]:
    """This environment without a token, with the examples folder and the repository importable."""
    env = {k: v for k, v in os.environ.items() if k != "AGENTSM_RUNS_TOKEN"}
    env["PYTHONPATH"] = os.pathsep.join((str(ROOT / "examples"), str(ROOT)))
    return env


@contextmanager
def serving_command(
    db: Path, *args: str, lines: list[str] | None = None, env: dict[str, str] | None = None
) -> Iterator[str]:
    """``agentsm-runs --db DB serve ARGS`` in a process, from the examples folder, while the block runs.

    It is stopped by SIGINT after the block, and must then exit 0. Its output goes into ``lines``;
    ``env`` is its environment (:func:`examples_env` if not given).
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    process = subprocess.Popen(
        serve_command(db, "--port", str(port), *args),
        cwd=ROOT / "examples",
        env=examples_env() if env is None else env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    listening = threading.Event()
    lines = [] if lines is None else lines

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if f"serving on http://127.0.0.1:{port}/" in line:  # printed once the port is held
                listening.set()
        listening.set()  # it exited: the assertion below says why

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert listening.wait(STARTUP_TIMEOUT) and process.poll() is None, "".join(lines)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(STARTUP_TIMEOUT)
        reader.join(STARTUP_TIMEOUT)
        assert process.stdout is not None
        process.stdout.close()
    assert code == 0, "".join(lines)
