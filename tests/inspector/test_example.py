"""The README's command: the durable orders example serves the inspector, and a person answers a run in it."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import threading
from contextlib import closing
from pathlib import Path

import httpx
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agentsm_fn.durable import RunStatus, SqliteStore
from tests.example_modules import EXAMPLES
from tests.inspector.pages import ready, until_text, visit


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until_serving(base: str, server: subprocess.Popen[str]) -> None:
    pause = threading.Event()
    with httpx.Client(base_url=base) as client:
        for _ in range(500):  # readiness of the server the example starts (bounded), not a timing
            try:
                if client.get("/").status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert server.poll() is None, "the example exited"
            pause.wait(0.02)
    raise AssertionError("the inspector did not start")


def test_the_orders_example_serves_the_inspector_and_a_waiting_order_is_approved_in_it(
    browser: WebDriver, tmp_path: Path
) -> None:
    db, port = tmp_path / "runs.db", _free_port()
    command = [
        sys.executable,
        str(EXAMPLES / "durable_orders.py"),
        "--db",
        str(db),
        "--inspect",
        "--port",
        str(port),
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert server.stdout is not None
        first = server.stdout.readline()  # the example prints the address once its runs are stored
        while "the run inspector" not in first and server.poll() is None:
            first = server.stdout.readline()
        base = f"http://127.0.0.1:{port}"
        assert f"{base}/" in first
        _until_serving(base, server)
        visit(browser, f"{base}/#/", "runs")
        runs = browser.find_element(By.CSS_SELECTOR, "table.runs").text
        assert {"o-1", "o-2", "o-3", "o-7", "o-1b"} <= set(runs.split())
        browser.find_element(By.LINK_TEXT, "o-7").click()
        ready(browser, "run")
        browser.find_element(By.ID, "approve").click()
        until_text(browser, "h1", "finished")
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=20)
    with closing(SqliteStore.open(db).unwrap()) as store:
        assert store.get("o-7").unwrap().status is RunStatus.FINISHED


def test_a_taken_port_is_said_and_no_address_is_announced(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        command = [
            sys.executable,
            str(EXAMPLES / "durable_orders.py"),
            "--db",
            str(tmp_path / "runs.db"),
            "--inspect",
            "--port",
            str(port),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "the run inspector" not in done.stdout  # it announced another process's address before
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
