"""A served agent answers every run, and a run whose agent failed is listed as failed, with why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agentsm_fn.agents.react import State
from agentsm_fn.durable import Durable, RunStatus, SqliteStore
from agentsm_fn.server import create_app
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from tests.example_modules import example
from tests.server.live import serving


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    """A SQLite store for one test, closed after it (the served app does not close the store it is given)."""
    opened = SqliteStore.open(tmp_path / "runs.db").unwrap()
    yield opened
    opened.close()


def test_the_served_example_agent_runs_again_and_again(store: SqliteStore) -> None:
    agents = example("human_approval_agent")
    with serving(create_app(store, [agents.EMAIL_AGENT])) as url:
        for n in range(3):  # one shared one-reply script failed every run after the first
            body = {"machine": agents.EMAIL_AGENT.name, "memory": {"task": agents.TASK}}
            made = httpx.post(f"{url}/runs", json={**body, "run_id": f"mail-{n}"}, timeout=30)
            assert made.status_code == 201, made.text
            assert made.json()["status"] == "waiting", made.json()  # its tool needs approval
            answer = {"decision": "approve", "resume": True}
            (seq,) = [p["seq"] for p in httpx.get(f"{url}/pending").json() if p["run_id"] == f"mail-{n}"]
            done = httpx.post(f"{url}/runs/mail-{n}/pending/{seq}/answer", json=answer, timeout=30)
            record = done.json()
            assert (record["status"], record["state"], record["reason"]) == ("finished", "Done", ""), record


def test_a_run_started_over_http_has_the_agents_tools_and_waits_for_approval(store: SqliteStore) -> None:
    agents = example("human_approval_agent")
    with serving(create_app(store, [agents.EMAIL_AGENT])) as url:
        body = {"machine": agents.EMAIL_AGENT.name, "memory": {"task": "Tell the team."}, "run_id": "mail"}
        made = httpx.post(f"{url}/runs", json=body, timeout=30)
        assert made.status_code == 201, made.text
        assert (made.json()["status"], made.json()["state"]) == ("waiting", "WaitingForHuman")
        (waiting,) = httpx.get(f"{url}/pending").json()
        assert (waiting["run_id"], waiting["summary"]) == ("mail", "AskHuman send_email"), waiting
        memory = httpx.get(f"{url}/runs/mail/state").json()["memory"]
        assert memory["task"] == "Tell the team."  # the request's field, in the template
        assert memory["system_prompt"] == agents.make_agent(agents.EmailScript()).memory.system_prompt
        answer = {"decision": "approve", "resume": True}
        done = httpx.post(f"{url}/runs/mail/pending/{waiting['seq']}/answer", json=answer, timeout=30)
        assert done.json()["status"] == "finished", done.json()
        history = httpx.get(f"{url}/runs/mail/state").json()["memory"]["history"]
        assert [(h["tool"]["name"], h["observation"]) for h in history] == [
            ("send_email", "SUCCESS: email sent to team@example.com")
        ]


def test_a_field_that_does_not_fit_the_template_is_a_422_and_stores_nothing(store: SqliteStore) -> None:
    agents = example("human_approval_agent")
    with serving(create_app(store, [agents.EMAIL_AGENT])) as url:
        for memory, named in (({"task": 3}, "memory.task: "), ({"nope": 1}, "has no field nope")):
            body = {"machine": agents.EMAIL_AGENT.name, "memory": memory, "run_id": "bad"}
            refused = httpx.post(f"{url}/runs", json=body, timeout=30)
            assert refused.status_code == 422, refused.text
            error = refused.json()["error"]
            assert error["kind"] == "invalid_memory" and named in error["detail"], error
        assert httpx.get(f"{url}/runs").json()["runs"] == []


def test_an_agent_that_ends_in_error_is_stored_as_failed_with_its_reason(store: SqliteStore) -> None:
    agents = example("human_approval_agent")
    agent = agents.make_agent(ScriptedLlm([]))  # the LLM fails on its first call
    ended = agents.durable_for(agent).start(store, agent.memory, "broken").unwrap()
    assert ended.snapshot.state is State.Error
    record = store.get("broken").unwrap()
    assert record.status is RunStatus.FAILED and record.state == "Error"
    assert record.reason.startswith("Agent failed: ") and "script_exhausted" in record.reason, record.reason
    with serving(create_app(store, [agents.EMAIL_AGENT])) as url:
        listed = httpx.get(f"{url}/runs").json()["runs"]
        assert [(r["run_id"], r["status"], r["reason"]) for r in listed] == [
            ("broken", "failed", record.reason)
        ]
        page = httpx.get(f"{url}/inspector/api/runs/broken").json()
        assert page["run"]["status"] == "failed" and "script_exhausted" in page["failure"], page["failure"]
    plain = Durable(name="plain:AGENT", machine=agent.machine, shell=agent.shell)  # no failure: finished
    plain.start(store, agent.memory, "plain").unwrap()
    assert store.get("plain").unwrap().status is RunStatus.FINISHED
