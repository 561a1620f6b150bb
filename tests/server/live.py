"""A real server for the tests: uvicorn on 127.0.0.1 on a free port, in a thread, stopped after."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import uvicorn
from starlette.types import ASGIApp

from agentsm_fn.durable.sqlite import SqliteStore
from tests.durable.machines import DURABLE_ORDERS, Order

STARTUP_TIMEOUT = 30.0


class _Server(uvicorn.Server):
    """uvicorn's server that says when it listens (an event, so no test polls)."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.listening = threading.Event()

    async def startup(self, sockets: list[object] | None = None) -> None:  # type: ignore[override]  # uvicorn's sockets are socket.socket
        await super().startup(sockets)  # type: ignore[arg-type]  # as above
        self.listening.set()


@contextmanager
def serving(app: ASGIApp) -> Iterator[str]:
    """Serve ``app`` on 127.0.0.1 (a free port) while the block runs; its base URL."""
    server = _Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert server.listening.wait(STARTUP_TIMEOUT), "uvicorn did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT)
        assert not thread.is_alive(), "uvicorn did not stop"


def orders_store(path: Path, finished: int = 2, waiting: int = 1) -> SqliteStore:
    """A store with finished and waiting runs of the order machine (runs ``done-N``, ``wait-N``)."""
    store = SqliteStore.open(path).unwrap()
    for n in range(finished):
        DURABLE_ORDERS.start(store, Order(items=2), run_id=f"done-{n}").unwrap()
    for n in range(waiting):
        DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id=f"wait-{n}").unwrap()
    return store
