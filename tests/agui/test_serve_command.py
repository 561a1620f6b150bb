"""``agentsm-runs serve --agui``: agents reached by the official AG-UI client (the ReAct human-approval agent
and the plan-and-execute agent), and a machine refused."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

import httpx

from agentsm_fn.durable import SqliteStore
from tests.agui.conftest import Lines
from tests.durable.machines import DURABLE_ORDERS
from tests.server.live import ROOT, STARTUP_TIMEOUT, examples_env, serve_command, serving_command

AGENT = "human_approval_agent:EMAIL_AGENT"
PLANNER = "plan_execute_agent:PLAN_AGENT"


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


def test_serve_agui_streams_a_plan_and_execute_run_to_the_official_client(
    tmp_path: Path, client: Callable[[Mapping[str, object]], Lines]
) -> None:
    SqliteStore.open(tmp_path / "runs.db").unwrap().close()
    with serving_command(tmp_path / "runs.db", "--agui", PLANNER, AGENT) as url:
        task = "Find the best PDF library for Ruby"
        plan = {
            "url": f"{url}/agui/{PLANNER}",
            "threadId": "thread-p",
            "messages": [{"id": "u1", "role": "user", "content": task}],
            "runs": [{"runId": "plan-1"}],
        }
        lines = client(plan)
        assert [line for line in lines if "error" in line] == [], lines
        events = [line["event"] for line in lines if "event" in line]
        (end,) = [line["end"] for line in lines if "end" in line]
        steps = [e["stepName"] for e in events if e["type"] == "STEP_STARTED"]
        assert steps[:4] == ["INTAKE", "PLAN", "DECIDE", "EXECUTE"] and steps[-1] == "FINALIZE", steps
        assert steps.count("OBSERVE") == 2 and steps.count("EXECUTE") == 3, steps
        memory = httpx.get(f"{url}/runs/plan-1/state").json()["memory"]
        calls = [(o["call_id"], o["tool"]) for o in memory["observations"]]
        assert [tool for _, tool in calls] == ["search", "read"]
        for call_id, tool in calls:  # each call of each batch: announced, its arguments, ended, answered
            own = [e for e in events if e.get("toolCallId") == call_id]
            assert [e["type"] for e in own] == [
                "TOOL_CALL_START",
                "TOOL_CALL_ARGS",
                "TOOL_CALL_END",
                "TOOL_CALL_RESULT",
            ], own
            assert own[0]["toolCallName"] == tool and json.loads(own[1]["delta"])
        answer = memory["final_result"]["content"]
        assert answer.startswith("Use Prawn")
        text = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
        assert "".join(text).endswith(answer)  # the answer is the last text message
        assert end["result"]["answer"] == answer and end["result"]["stopped_by"] == "no_tool_calls"
        assert any(m["role"] == "assistant" and m.get("content") == answer for m in end["messages"])
        assert end["state"] == memory and end["state"]["input"] == task  # the client's patched state
        assert httpx.get(f"{url}/runs/plan-1").json()["status"] == "finished"


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
