"""Real MCP servers for the tests: ours (tests/mcp/server.py) over stdio and HTTP, and the reference one."""

from __future__ import annotations

import os
import shutil
import signal as signals_module
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, Unpack

import pytest

from agentsm_fn.mcp import McpClient, McpOptions

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(__file__).with_name("server.py")
WAIT = 60.0  # the longest any test waits for a server's signal (a bound, not a timing assertion)


class Signals:
    """Lines the test server reports, one per connection, on a loopback socket the test owns."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self._socket.settimeout(WAIT)
        host, port = self._socket.getsockname()
        self.address = f"{host}:{port}"
        self._early: list[str] = []
        self.seen: list[str] = []

    def expect(self, prefix: str) -> str:
        """The next line starting with ``prefix`` (others are kept for later); blocks until it comes."""
        for line in self._early:
            if line.startswith(prefix):
                self._early.remove(line)
                return line
        while True:
            conn, _ = self._socket.accept()  # raises TimeoutError after WAIT seconds: the test fails
            with conn, conn.makefile("r", encoding="utf-8") as lines:
                line = lines.readline().strip()
            self.seen.append(line)
            if line.startswith(prefix):
                return line
            self._early.append(line)

    def close(self) -> None:
        self._socket.close()


@pytest.fixture
def signals() -> Iterator[Signals]:
    channel = Signals()
    yield channel
    channel.close()


def stdio_client(signals: Signals, **options: Unpack[McpOptions]) -> McpClient:
    """A client of tests/mcp/server.py, started as a subprocess over stdio."""
    env = {"AGENTSM_MCP_SIGNALS": signals.address}
    return McpClient.stdio(sys.executable, str(SERVER), "stdio", env=env, **options)


class MakeClient(Protocol):
    """Makes a client of the test server with the given options."""

    def __call__(self, **options: Unpack[McpOptions]) -> McpClient: ...


@pytest.fixture
def make_stdio(signals: Signals) -> MakeClient:
    def make(**options: Unpack[McpOptions]) -> McpClient:
        return stdio_client(signals, **options)

    return make


class HttpServer:
    """tests/mcp/server.py serving Streamable HTTP on a free 127.0.0.1 port (a subprocess)."""

    def __init__(self, signals: Signals) -> None:
        env = {**os.environ, "AGENTSM_MCP_SIGNALS": signals.address}
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), "http"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            text=True,
        )
        assert self.process.stdout is not None
        first = self.process.stdout.readline().split()  # blocks until the port is bound
        assert first[:1] == ["PORT"], f"the test server did not start: {first}"
        self.url = f"http://127.0.0.1:{first[1]}/mcp"

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signals_module.SIGKILL)
        self.process.wait(timeout=WAIT)

    def close(self) -> None:
        self.kill()
        assert self.process.stdout is not None
        self.process.stdout.close()


@pytest.fixture
def http_server(signals: Signals) -> Iterator[HttpServer]:
    server = HttpServer(signals)
    yield server
    server.close()


@pytest.fixture
def make_http(http_server: HttpServer) -> MakeClient:
    def make(**options: Unpack[McpOptions]) -> McpClient:
        return McpClient.http(http_server.url, **options)

    return make


# ---- the reference server: @modelcontextprotocol/server-everything, installed by scripts/mcp_everything.sh


def everything_entry() -> Path | None:
    prefix = Path(os.environ.get("MCP_EVERYTHING_PREFIX", ROOT / ".cache" / "mcp-everything"))
    entry = prefix / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    return entry if entry.is_file() else None


def require_everything() -> tuple[str, ...]:
    """``node .../index.js stdio``; a failure under CI=true when it is missing, else a skip."""
    entry, node = everything_entry(), shutil.which("node")
    if entry is None or node is None:
        message = "the MCP reference server is missing (run `bash scripts/mcp_everything.sh`; needs node)"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: never skipped)")
        pytest.skip(message)
    return (node, str(entry), "stdio")


@pytest.fixture(scope="session")
def everything_command() -> tuple[str, ...]:
    return require_everything()


def everything_client(command: tuple[str, ...], **options: Unpack[McpOptions]) -> McpClient:
    """A client of the reference server, started over stdio."""
    return McpClient.stdio(*command, **options)
