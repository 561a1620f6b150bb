"""Runs on Temporal stay in the trace of the code that started them, across processes.

The test process starts each run inside a span of its own (its own tracer provider, an
in-memory exporter); the worker subprocesses (``tests.temporal.traced_worker``) trace with
the Temporal SDK's replay-safe provider and write every span they end to a file. The
workflow's ``invoke_agent`` span is a child of the caller's span and the effects' spans,
made where the effects are performed, are its children: the span tree a local run has.
A worker killed mid-run and a run continued as new stay in the same trace, each span
exported once; no span holds the provider's API key.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Span
from temporalio.client import Client

from agentsm_fn import machine_fingerprint
from agentsm_fn.temporal import (
    RunCancelled,
    TemporalMachine,
    TemporalRun,
    connect,
    machine_replayer,
    start_run,
)
from tests.teams.programs import DELEGATOR, Boss, P
from tests.temporal.helpers import ROOT, WorkerPool, child_env, queue, wait_for
from tests.temporal.machines import ORDERS, Order
from tests.temporal.traced_worker import CONTINUED, SENTINEL, sentinel_agent
from tests.temporal.worker_process import SPEC

Row = dict[str, object]
Run = TemporalRun[Any, Order]


def spans_in(directory: Path, pattern: str = "spans-*.jsonl") -> list[Row]:
    """The spans written to the files of ``directory`` matching ``pattern``, in the order they ended."""
    rows: list[Row] = []
    for path in sorted(directory.glob(pattern)):
        rows += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return rows


class TracedWorkers(WorkerPool):
    """Traced worker subprocesses (``tests.temporal.traced_worker``) of one test."""

    def __init__(self, target: str, directory: Path) -> None:
        super().__init__(target, queue(), directory, "tests.temporal.traced_worker")

    def start(self, kind: str, slow: str = "") -> subprocess.Popen[bytes]:
        return self.spawn(kind, slow)

    def spans(self, process: subprocess.Popen[bytes] | None = None) -> list[Row]:
        """The spans the workers (or one of them) ended, in the order they ended."""
        return spans_in(self.directory, "spans-*.jsonl" if process is None else f"spans-{process.pid}.jsonl")

    async def start_order(
        self, client: Client, order_id: str, spec: TemporalMachine[Any, Any, Order] = SPEC
    ) -> Run:
        """Start a run of ``spec`` for order ``order_id`` (amount 5) on this pool's task queue."""
        order = Order(order_id=order_id, amount=5)
        return await start_run(
            client, spec, order, run_id=f"{order_id}-{self.task_queue}", task_queue=self.task_queue
        )


@pytest.fixture
def workers(temporal_target: str, tmp_path: Path) -> Iterator[TracedWorkers]:
    pool = TracedWorkers(temporal_target, tmp_path)
    yield pool
    pool.stop()


@contextlib.contextmanager
def handling_request() -> Iterator[tuple[Span, InMemorySpanExporter]]:
    """The caller's span "handle request", current inside the block (its own provider and exporter)."""
    exporter, provider = InMemorySpanExporter(), TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with provider.get_tracer("app").start_as_current_span("handle request") as span:
        yield span, exporter


def ids(span: Span) -> tuple[int, int]:
    context = span.get_span_context()
    return context.trace_id, context.span_id


def named(rows: list[Row], name: str) -> list[Row]:
    return [r for r in rows if r["name"] == name]


def children(rows: list[Row], parent: object) -> list[str]:
    return [str(r["name"]) for r in rows if r["parent"] == parent]


async def test_a_machines_run_span_and_effect_spans_nest_under_the_callers_span(
    workers: TracedWorkers, temporal_target: str
) -> None:
    workers.start("orders")
    client = await connect(temporal_target, tracing=True)
    with handling_request() as (span, exporter):
        run = await workers.start_order(client, "t1")
        finished = (await run.result()).unwrap()
    trace_id, caller_id = ids(span)
    rows = workers.spans()
    (agent,) = named(rows, "invoke_agent orders")
    assert {r["trace_id"] for r in rows} == {trace_id}
    assert agent["parent"] == caller_id
    assert children(rows, agent["span_id"]) == ["Charge", "Ship"]
    attributes = agent["attributes"]
    assert isinstance(attributes, dict)
    assert attributes["gen_ai.agent.id"] == repr(machine_fingerprint(ORDERS))
    assert attributes["agentsm.run.status"] == repr("finished")
    assert attributes["agentsm.run.steps"] == repr(finished.steps)
    events = agent["events"]
    assert isinstance(events, list) and len(events) == finished.steps  # every transition, once
    assert [s.name for s in exporter.get_finished_spans()] == ["handle request"]
    # the recorded history replays with no non-determinism error; that a worker replaying it exports no
    # second span is shown by the takeover test below (the second worker replays Charge, ends one run span)
    await machine_replayer([SPEC]).replay_workflow(await run.handle.fetch_history())


async def test_a_child_workflows_run_span_nests_under_its_parents_run_span(
    workers: TracedWorkers, temporal_target: str
) -> None:
    workers.start("team")
    client = await connect(temporal_target, tracing=True)
    with handling_request() as (span, _):
        run_id = f"boss-{workers.task_queue}"
        run = await start_run(
            client, DELEGATOR.machine, Boss(n=4), run_id=run_id, task_queue=workers.task_queue
        )
        assert (await run.result()).unwrap().state is P.DONE
    trace_id, caller_id = ids(span)
    rows = workers.spans()
    (parent,) = named(rows, "invoke_agent teams-delegator")
    (child,) = named(rows, "invoke_agent teams-child")
    assert {r["trace_id"] for r in rows} == {trace_id}
    assert parent["parent"] == caller_id and child["parent"] == parent["span_id"]
    assert children(rows, child["span_id"]) == ["Note"]


async def test_a_react_run_with_a_tool_call_has_the_local_span_tree_and_no_secret(
    workers: TracedWorkers, temporal_target: str
) -> None:
    from agentsm_fn.temporal import react_on_temporal

    workers.start("react")
    client = await connect(temporal_target, tracing=True)
    agent = sentinel_agent()
    spec = react_on_temporal(agent)
    with handling_request() as (span, exporter):
        run = await start_run(
            client, spec, agent.memory, run_id=f"r-{workers.task_queue}", task_queue=workers.task_queue
        )
        finished = (await run.result()).unwrap()
    assert finished.memory.final_answer == "Prawn is the usual choice.", (
        finished.memory.error,
        workers.spans(),
    )
    trace_id, caller_id = ids(span)
    rows = workers.spans()
    (run_span,) = named(rows, "invoke_agent react")
    assert {r["trace_id"] for r in rows} == {trace_id}
    assert run_span["parent"] == caller_id
    assert children(rows, run_span["span_id"]) == ["chat gpt-4o", "execute_tool search", "chat gpt-4o"]
    (tool,) = named(rows, "execute_tool search")
    assert isinstance(tool["attributes"], dict) and tool["attributes"]["gen_ai.tool.call.id"] == repr("c1")
    exported = json.dumps(rows) + repr([s.attributes for s in exporter.get_finished_spans()])
    assert "gen_ai.input.messages" in exported  # content was captured, and still no key
    assert SENTINEL not in exported


async def test_a_run_taken_over_from_a_killed_worker_stays_in_one_trace_with_one_run_span(
    workers: TracedWorkers, temporal_target: str
) -> None:
    first = workers.start("orders", slow="Ship-k1")
    client = await connect(temporal_target, tracing=True)
    with handling_request() as (span, _exporter):
        run = await workers.start_order(client, "k1")
        wait_for([workers.directory / "started-Ship-k1"], first)
        first.send_signal(signal.SIGKILL)
        first.wait()
        second = workers.start("orders")
        (await run.result()).unwrap()
    trace_id, caller_id = ids(span)
    before, after = workers.spans(first), workers.spans(second)
    assert [r["name"] for r in before] == ["Charge"]  # its Ship span died with it, never ended
    (agent,) = named(before + after, "invoke_agent orders")  # ended once, by the second worker
    assert agent in after and agent["parent"] == caller_id
    assert {r["trace_id"] for r in before + after} == {trace_id}
    assert children(before, agent["span_id"]) == ["Charge"]  # the same span id on both workers
    assert children(after, agent["span_id"]) == ["Ship"]


async def test_a_cancelled_run_ends_its_span_with_an_error_saying_so(
    workers: TracedWorkers, temporal_target: str
) -> None:
    worker = workers.start("orders", slow="Ship-x1")
    client = await connect(temporal_target, tracing=True)
    with handling_request() as (span, _exporter):
        run = await workers.start_order(client, "x1")
        wait_for([workers.directory / "started-Ship-x1"], worker)
        await run.cancel()
        stopped = (await run.result()).failure()
    assert stopped == RunCancelled(run_id=run.run_id, detail="cancelled")
    trace_id, caller_id = ids(span)
    rows = workers.spans()
    (agent,) = named(rows, "invoke_agent orders")
    assert agent["parent"] == caller_id and agent["trace_id"] == trace_id
    assert agent["status"] == "ERROR"
    attributes = agent["attributes"]
    assert isinstance(attributes, dict)
    assert attributes["agentsm.run.status"] == repr("cancelled")
    assert attributes["error.type"] == repr("cancelled")
    assert attributes["agentsm.run.final_state"] == repr("SHIPPING")
    assert children(rows, agent["span_id"]) == ["Charge"]  # Ship was still running when the run was cancelled


async def test_a_run_continued_as_new_stays_in_the_callers_trace(
    workers: TracedWorkers, temporal_target: str
) -> None:
    workers.start("orders-continued")
    client = await connect(temporal_target, tracing=True)
    with handling_request() as (span, _exporter):
        run = await workers.start_order(client, "c1", CONTINUED)
        (await run.result()).unwrap()
    trace_id, caller_id = ids(span)
    rows = workers.spans()
    first, second = named(rows, "invoke_agent orders")
    assert {r["trace_id"] for r in rows} == {trace_id}
    assert first["parent"] == second["parent"] == caller_id
    assert isinstance(first["attributes"], dict) and first["attributes"]["agentsm.run.continued"] == "True"
    assert first["attributes"]["agentsm.run.status"] == repr("continued")  # not "awaiting": no one is asked
    assert isinstance(second["attributes"], dict) and second["attributes"]["agentsm.run.resumed"] == "True"
    assert children(rows, first["span_id"]) == ["Charge"]
    assert children(rows, second["span_id"]) == ["Ship"]


def test_the_docs_tracing_block_traces_a_checkout_from_the_client_to_the_effects(
    temporal_target: str, tmp_path: Path
) -> None:
    """docs/temporal.md's tracing block, run as written by ``tests.temporal.traced_docs``."""
    command = [sys.executable, "-m", "tests.temporal.traced_docs", temporal_target, str(tmp_path)]
    done = subprocess.run(
        command, cwd=ROOT, env=child_env(), capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    rows = spans_in(tmp_path)
    (checkout,) = named(rows, "checkout")
    (agent,) = named(rows, "invoke_agent orders")
    assert agent["parent"] == checkout["span_id"] and checkout["parent"] is None
    assert children(rows, agent["span_id"]) == ["Charge", "Ship"]
    assert {r["trace_id"] for r in rows} == {checkout["trace_id"]}
