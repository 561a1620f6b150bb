"""``agentsm-runs serve``: a real process serving a store, reached over HTTP, stopped by a signal."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import httpx

from agentsm_fn.durable.stores.sqlite import SqliteStore
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import (
    ROOT,
    STARTUP_TIMEOUT,
    examples_env,
    orders_store,
    serve_command,
    serving_command,
)


def test_serve_answers_over_http_and_stops_on_sigint(tmp_path: Path) -> None:
    orders_store(tmp_path / "runs.db").close()
    env = examples_env() | {"AGENTSM_RUNS_TOKEN": "from-the-env-123456789"}
    lines: list[str] = []
    with serving_command(tmp_path / "runs.db", DURABLE_ORDERS.name, lines=lines, env=env) as url:
        assert httpx.get(f"{url}/runs").status_code == 401  # the token came from the environment
        auth = {"Authorization": "Bearer from-the-env-123456789"}
        runs = httpx.get(f"{url}/runs", headers=auth).json()["runs"]
        assert sorted(run["run_id"] for run in runs) == ["done-0", "done-1", "wait-0"]
        assert httpx.get(f"{url}/machines", headers=auth).json()[0]["name"] == DURABLE_ORDERS.name
    assert "from-the-env-123456789" not in "".join(lines)


def _serve_refused(
    store: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``agentsm-runs --db STORE serve ARGS...`` run to its end: a serve that refuses to start."""
    return subprocess.run(
        serve_command(store, *args),
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)} if env is None else env,
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
        check=False,
    )


def test_serve_refuses_another_address_without_a_token(tmp_path: Path) -> None:
    orders_store(tmp_path / "runs.db").close()
    env = {k: v for k, v in os.environ.items() if k != "AGENTSM_RUNS_TOKEN"} | {"PYTHONPATH": str(ROOT)}
    done = _serve_refused(tmp_path / "runs.db", "--host", "0.0.0.0", DURABLE_ORDERS.name, env=env)
    assert done.returncode == 2 and "refusing to serve on 0.0.0.0 without a token" in done.stderr


def test_serve_names_a_machine_it_cannot_load(tmp_path: Path) -> None:
    orders_store(tmp_path / "runs.db").close()
    done = _serve_refused(tmp_path / "runs.db", "no_such_module:AGENT")
    assert done.returncode == 3 and "cannot load no_such_module:AGENT" in done.stderr


def test_serve_refuses_a_durable_whose_template_is_not_its_machines_memory(tmp_path: Path) -> None:
    orders_store(tmp_path / "runs.db").close()
    module = tmp_path / "wrong_template.py"
    module.write_text(
        "from agentsm_fn.durable import Durable\n"
        "from tests.durable.machines import ORDERS\n"
        "ORDERS_BY_HTTP = Durable(name='wrong:ORDERS_BY_HTTP', machine=ORDERS, template={'items': 2})\n"
    )
    done = _serve_refused(tmp_path / "runs.db", f"{module}:ORDERS_BY_HTTP")
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "serving on" not in done.stdout
    assert "template is of class builtins:dict" in done.stderr
    assert "memory class is tests.durable.machines:Order" in done.stderr


def test_a_served_agent_keeps_its_template_so_a_run_started_over_http_waits_for_approval(
    tmp_path: Path,
) -> None:
    name = "human_approval_agent:EMAIL_AGENT"
    SqliteStore.open(tmp_path / "runs.db").unwrap().close()
    with serving_command(tmp_path / "runs.db", name) as url:
        body = {"machine": name, "memory": {"task": "Tell the team."}, "run_id": "mail"}
        made = httpx.post(f"{url}/runs", json=body, timeout=STARTUP_TIMEOUT)
        assert made.status_code == 201, made.text
        assert (made.json()["status"], made.json()["state"]) == ("waiting", "WaitingForHuman"), made.json()
        assert [p["summary"] for p in httpx.get(f"{url}/pending").json()] == ["AskHuman send_email"]


def test_open_event_streams_end_cleanly_when_the_server_stops(tmp_path: Path) -> None:
    """Ctrl-C with a waiting run's stream and the change stream open: both end, and no error is logged."""
    orders_store(tmp_path / "runs.db").close()
    lines: list[str] = []
    opened = {path: threading.Event() for path in ("/runs/wait-0/events", "/events")}
    ended: dict[str, str] = {}

    def listen(url: str, path: str) -> None:
        try:
            with httpx.stream("GET", url + path, timeout=STARTUP_TIMEOUT) as response:
                opened[path].set()
                for _ in response.iter_bytes():
                    pass
            ended[path] = "complete"
        except httpx.HTTPError as exc:  # a response the server cut off: incomplete chunked read
            ended[path] = f"{type(exc).__name__}: {exc}"

    with serving_command(tmp_path / "runs.db", DURABLE_ORDERS.name, lines=lines) as url:
        listeners = [threading.Thread(target=listen, args=(url, path), daemon=True) for path in opened]
        for listener in listeners:
            listener.start()
        assert all(event.wait(STARTUP_TIMEOUT) for event in opened.values()), ended
    for listener in listeners:
        listener.join(STARTUP_TIMEOUT)
    assert ended == {path: "complete" for path in opened}, "".join(lines)
    assert "ASGI callable returned without completing response" not in "".join(lines)
