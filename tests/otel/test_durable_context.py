"""A durable run's trace context crosses processes: the run continued elsewhere links to its first trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from contextlib import closing
from pathlib import Path

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.operations.answers import answer
from tests.durable.machines import Order
from tests.otel.durable_traced import TRACED_ORDERS, TRACING

ROOT = Path(__file__).resolve().parents[2]


def _child(db: Path, run_id: str, how: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tests.otel.durable_traced", str(db), run_id, how]
    return subprocess.run(
        command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False
    )


def _ids(trace_id: int, span_id: int) -> list[str]:
    return [f"{trace_id:032x}", f"{span_id:016x}"]


def test_a_waiting_run_answered_and_resumed_in_another_process_links_to_its_first_trace(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    store = SqliteStore.open(db).unwrap()
    TRACING.exporter.clear()
    stored = TRACED_ORDERS.start(store, Order(items=2, approval_over=0)).unwrap()
    (first,) = [s for s in TRACING.spans() if s.name == "invoke_agent orders"]
    assert first.context is not None
    saved = dict(store.trace_context(stored.run_id).unwrap())
    assert set(saved) == {"traceparent"}
    assert saved["traceparent"].split("-")[1:3] == _ids(first.context.trace_id, first.context.span_id)
    answer(store, stored.run_id, 4, True).unwrap()
    store.close()

    done = _child(db, stored.run_id, "resume")
    assert done.returncode == 0, done.stderr
    (resumed,) = [s for s in json.loads(done.stdout) if s["name"] == "invoke_agent orders"]
    assert resumed["links"] == [[first.context.trace_id, first.context.span_id]]
    assert resumed["trace_id"] != first.context.trace_id  # its own trace, linked to the first


def test_a_run_killed_mid_effect_and_recovered_in_another_process_links_to_its_first_trace(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    SqliteStore.open(db).unwrap().close()
    killed = _child(db, "run-1", "start-and-die")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    store = SqliteStore.open(db).unwrap()
    saved = dict(store.trace_context("run-1").unwrap())
    assert set(saved) == {"traceparent"}
    _, trace_id, span_id, _ = saved["traceparent"].split("-")
    store.close()

    done = _child(db, "run-1", "recover")
    assert done.returncode == 0, done.stderr
    (recovered,) = [s for s in json.loads(done.stdout) if s["name"] == "invoke_agent orders"]
    assert recovered["links"] == [[int(trace_id, 16), int(span_id, 16)]]


def test_an_old_store_gains_the_table_and_a_corrupt_context_is_a_typed_failure(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    store = SqliteStore.open(db).unwrap()
    store._db.execute("DROP TABLE trace_contexts")  # a store written before trace contexts
    store.close()
    with closing(SqliteStore.open(db).unwrap()) as reopened:
        assert dict(reopened.trace_context("r1").unwrap()) == {}
        reopened._db.execute("INSERT INTO trace_contexts(run_id, carrier) VALUES ('r1', '[1, 2]')")
        failed = reopened.trace_context("r1").failure()
    assert failed.operation == "read trace context" and failed.run_id == "r1"
    assert "not a JSON object of strings" in failed.describe()
