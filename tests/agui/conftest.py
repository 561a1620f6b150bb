"""The AG-UI endpoint served by uvicorn on 127.0.0.1, and the official TypeScript client run by node.

The client (@ag-ui/client, pinned) is installed by scripts/agui_client.sh into .cache/agui-client
(`bash scripts/dev.sh test` runs it). Under CI=true a missing node or client fails the tests; elsewhere
they are skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from agentsm_fn.durable import SqliteStore
from agentsm_fn.server.agui import AguiAgent, agui_routes

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("driver.cjs")

Lines = list[dict[str, Any]]


def _client_prefix() -> Path | None:
    prefix = Path(os.environ.get("AGUI_CLIENT_PREFIX", ROOT / ".cache" / "agui-client"))
    return prefix if (prefix / "node_modules" / "@ag-ui" / "client" / "package.json").is_file() else None


def require_client() -> tuple[str, Path]:
    """node and the client's prefix; a failure under CI=true when either is missing, else a skip."""
    node, prefix = shutil.which("node"), _client_prefix()
    if node is None or prefix is None:
        message = "the AG-UI TypeScript client is missing (run `bash scripts/agui_client.sh`; needs node)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: never skipped)")
        pytest.skip(message)
    return node, prefix


class Served:
    """An app served by uvicorn on a free loopback port, in a thread of this process."""

    def __init__(self, app: FastAPI) -> None:
        sock = socket.socket()  # bound here and handed over: no other process can take the port meanwhile
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        started = threading.Event()
        for _ in range(2000):  # readiness poll on uvicorn's own flag, bounded
            if self.server.started or not self.thread.is_alive():
                break
            started.wait(0.005)
        assert self.server.started, "uvicorn did not start"

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore.open(tmp_path / "runs.db").unwrap()
    yield opened
    opened.close()


@pytest.fixture
def serve(store: SqliteStore) -> Iterator[Callable[[Sequence[AguiAgent[Any, Any, Any]]], Served]]:
    """Serve agents' AG-UI endpoints on ``store``; every server is stopped after the test."""
    servers: list[Served] = []

    def start(agents: Sequence[AguiAgent[Any, Any, Any]]) -> Served:
        app = FastAPI()
        app.include_router(agui_routes(store, agents))
        servers.append(Served(app))
        return servers[-1]

    yield start
    for served in servers:
        served.stop()


@pytest.fixture
def client() -> Callable[[Mapping[str, object]], Lines]:
    """Run the driver (HttpAgent) with a plan; the JSON lines it printed."""
    node, prefix = require_client()

    def run(plan: Mapping[str, object]) -> Lines:
        done = subprocess.run(
            [node, str(DRIVER), str(prefix)],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    return run
