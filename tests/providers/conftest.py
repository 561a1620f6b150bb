"""Shared helpers: recorded streams from ../shared, in-memory httpx servers, the aimock peer."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import httpx
import pytest

from agentsm_fn.providers import RetryPolicy, Transport
from agentsm_fn.providers.openai_codec import OpenAiCodec

ROOT = Path(__file__).resolve().parents[2]
PROTOCOLS = ROOT.parent / "shared" / "protocols"
RECORDINGS = PROTOCOLS / "recordings"
SPECS = PROTOCOLS / "specs"
FIXTURES = ROOT / "tests" / "fixtures" / "aimock"
FIXTURE_FILES = (
    "guardrails.json",  # a guardrail's check: its system message names it, before any other match
    "evals.json",
    "plan_execute.json",
    "conversations.json",
)  # first match wins: the catch-all file comes last

requires_shared = pytest.mark.skipif(
    not RECORDINGS.is_dir() and os.environ.get("CI") != "true",  # CI=true: the tests run and fail instead
    reason=f"{PROTOCOLS} is absent: the recorded streams and specs live outside this repository",
)

Handler = Callable[[httpx.Request], httpx.Response]


def recording(kind: str, name: str) -> bytes:
    return (RECORDINGS / kind / name).read_bytes()


def sse_response(body: bytes, status: int = 200) -> httpx.Response:
    return httpx.Response(status, headers={"content-type": "text/event-stream"}, content=body)


def json_response(body: object, status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, headers=headers or {}, json=body)


class Sleeps:
    """Records requested sleeps instead of sleeping (sync and async)."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)

    async def asleep(self, seconds: float) -> None:
        self.delays.append(seconds)


def instant_transport(sleeps: Sleeps, *, max_retries: int = 2) -> Transport:
    """A transport template whose sleeps are recorded, clock fixed and jitter draw 1.0."""
    return Transport(
        codec=OpenAiCodec(),
        base_url="",
        policy=RetryPolicy(max_retries=max_retries),
        sleep=sleeps,
        asleep=sleeps.asleep,
        clock=lambda: 1_700_000_000.0,
        draw=lambda: 1.0,
    )


# ---- the aimock peer --------------------------------------------------------------------------------------


def _aimock_cli() -> Path | None:
    prefix = Path(os.environ.get("AIMOCK_PREFIX", ROOT / ".cache" / "aimock"))
    cli = prefix / "node_modules" / "@copilotkit" / "aimock" / "dist" / "cli.js"
    return cli if cli.is_file() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Aimock:
    """A running aimock server on loopback and its control plane."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.control = httpx.Client(base_url=base, timeout=10)

    def reset(self) -> None:
        self.control.post("/__aimock/reset/journal").raise_for_status()
        fixtures = [
            f for name in FIXTURE_FILES for f in json.loads((FIXTURES / name).read_text())["fixtures"]
        ]
        # Reset the whole pool (drops one-shot errors and match counters), then load ours again.
        self.control.post("/__aimock/reset").raise_for_status()
        self.control.post("/__aimock/fixtures", json={"fixtures": fixtures}).raise_for_status()

    def journal(self) -> list[dict[str, object]]:
        entries = self.control.get("/__aimock/journal").json()
        assert isinstance(entries, list)
        return [e for e in entries if isinstance(e, dict)]

    def error_next(self, status: int, body: object, headers: dict[str, str] | None = None) -> None:
        payload: dict[str, object] = {"status": status, "body": body}
        if headers:
            payload["headers"] = headers
        self.control.post("/__aimock/error", json=payload).raise_for_status()


def _missing(message: str) -> NoReturn:
    """A missing aimock: a failure under CI=true (never skipped there), a skip elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(message + " (CI=true: never skipped)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def aimock_server() -> Iterator[Aimock]:
    cli = _aimock_cli()
    node = shutil.which("node")
    if cli is None or node is None:
        _missing("aimock is not installed (run `bash scripts/aimock.sh`; needs node >= 20.15)")
    port = _free_port()
    process = subprocess.Popen(
        [node, str(cli), "--host", "127.0.0.1", "--port", str(port), "-f", str(FIXTURES)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):  # readiness poll, not a timing assertion
            try:
                if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None:
                _missing("aimock exited at start-up")
            time.sleep(0.05)
        else:
            pytest.fail("aimock did not become healthy")
        server = Aimock(base)
        yield server
    finally:
        if "server" in locals():
            server.control.close()
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture
def aimock(aimock_server: Aimock) -> Aimock:
    aimock_server.reset()
    return aimock_server


@pytest.fixture(autouse=True)
def wire() -> Iterator[object]:
    """Reset the capture of sent requests, and close the clients it opened."""
    from tests.providers.peer import WIRE

    WIRE.sent.clear()
    WIRE.headers.clear()
    WIRE.opened = []
    yield WIRE
    for client in WIRE.opened:
        client.close()
