"""``agentsm-runs serve --agui``: an agent reached by the official AG-UI client, and a machine refused."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

from agentsm_fn.durable import SqliteStore
from tests.agui.conftest import Lines
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import ROOT, STARTUP_TIMEOUT, examples_env, serve_command, serving_command

AGENT = "human_approval_agent:EMAIL_AGENT"


def test_serve_agui_answers_an_ag_ui_client_whose_approval_resumes_the_stored_run(
    tmp_path: Path, client: Callable[[Mapping[str, object]], Lines]
) -> None:
    SqliteStore.open(tmp_path / "runs.db").unwrap().close()
    with serving_command(tmp_path / "runs.db", "--agui", AGENT) as url:
        plan = {
            "url": f"{url}/agui/{AGENT}",
            "threadId": "thread-1",
            "messages": [{"id": "u1", "role": "user", "content": "Tell the team."}],
            "runs": [
                {"runId": "ask"},
                {"runId": "answer", "answer": {"status": "resolved", "payload": {"approved": True}}},
            ],
        }
        lines = client(plan)
        ends = [line["end"] for line in lines if "end" in line]
        assert [line for line in lines if "error" in line] == [] and len(ends) == 2, lines
        assert [i["id"] for i in ends[0]["interrupts"]] == ["ask#1"]  # the template's tool needs approval
        assert ends[0]["interrupts"][0]["toolCallId"] == "call_send_email"
        assert ends[1]["interrupts"] == [] and ends[1]["result"].startswith("Done: the team has been told")
        state = httpx.get(f"{url}/runs/ask/state").json()
        assert state["memory"]["task"] == "Tell the team."
        assert [(h["tool"]["name"], h["observation"]) for h in state["memory"]["history"]] == [
            ("send_email", "SUCCESS: email sent to team@example.com")
        ]
        assert httpx.get(f"{url}/runs/ask").json()["status"] == "finished"


def test_serve_agui_refuses_a_machine_ag_ui_cannot_drive_and_names_it(tmp_path: Path) -> None:
    SqliteStore.open(tmp_path / "runs.db").unwrap().close()
    done = subprocess.run(
        serve_command(tmp_path / "runs.db", "--agui", AGENT, DURABLE_ORDERS.name),
        cwd=ROOT / "examples",
        env=examples_env(),
        capture_output=True,
        text=True,
        timeout=STARTUP_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    refused = f"serve --agui: AG-UI cannot drive {DURABLE_ORDERS.name}: AG-UI drives a ReAct agent"
    assert refused in done.stderr
    assert f"cannot drive {AGENT}" not in done.stderr and "serving on" not in done.stderr + done.stdout
