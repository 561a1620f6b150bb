"""The server (the JSON API and the inspector) in a thread of the test process: uvicorn on 127.0.0.1."""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn

from agentsm_fn.durable import Durable, RunStore
from agentsm_fn.server import create_app


class Served:
    """``with Served(store, [durable]) as base:`` serves the inspector at ``base`` until the block ends."""

    def __init__(
        self, store: RunStore, durables: list[Durable[Any, Any, Any]], token: str | None = None
    ) -> None:
        self.app = create_app(store, durables, token=token)
        # A page still open in the browser holds an event stream (lifespan is off, so the app's shutdown
        # does not end its streams): stop waiting for it after a second, not after the join's 10 s.
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1)
        self.server = uvicorn.Server(config)
        self.started = threading.Event()
        self.thread: threading.Thread | None = None

    def __enter__(self) -> str:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        for _ in range(500):  # readiness: the server says it started (bounded)
            if self.server.started or not self.thread.is_alive():
                break
            self.started.wait(0.01)
        assert self.server.started, "the inspector's server did not start"
        return f"http://127.0.0.1:{port}"

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)
