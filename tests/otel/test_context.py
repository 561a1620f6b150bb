"""Where runs' spans go: under the caller's span, apart when concurrent, nowhere when tracing is off."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from opentelemetry import trace
from opentelemetry.metrics import NoOpMeterProvider

from agentsm_fn import Performers, Shell, StepClock, arun, machine_fingerprint, run
from agentsm_fn.core.observe import RunStart
from agentsm_fn.durable import SqliteStore
from agentsm_fn.otel import OtelObserver, continuing, trace_context
from tests.core.sample import Ask, Mem, S, sample_machine
from tests.durable.machines import ORDERS, Order
from tests.otel.agents import parallel_agent
from tests.otel.durable_traced import TRACED_ORDERS, TRACING
from tests.otel.spans import traced


def test_a_runs_span_nests_under_the_callers_current_span() -> None:
    tracing = traced()
    tracer = tracing.tracer_provider.get_tracer("app")
    with tracer.start_as_current_span("handle request"):
        parallel_agent(tracing.observer).run()
    (tree,) = tracing.trees()
    assert tree[0] == "handle request"
    assert [child[0] for child in tree[1]] == ["invoke_agent react"]
    assert len(tree[1][0][1]) == 4


def test_a_performer_runs_with_its_effects_span_current() -> None:
    tracing = traced()
    tracer = tracing.tracer_provider.get_tracer("app")

    def ask(_effect: Ask) -> int:
        with tracer.start_as_current_span("inside the performer"):
            return 1

    run(sample_machine(), Mem(), Shell(Performers().on(Ask, ask), StepClock(), tracing.observer))
    assert tracing.trees() == [
        ("invoke_agent sample", tuple(("Ask", (("inside the performer", ()),)) for _ in range(3)))
    ]


def test_concurrent_async_runs_stay_apart() -> None:
    tracing = traced()
    tracer = tracing.tracer_provider.get_tracer("app")

    async def ask(_effect: Ask) -> int:
        await asyncio.sleep(0)  # let the other run interleave
        return 1

    shell = Shell(Performers().on_async(Ask, ask), StepClock(), tracing.observer)

    async def one(name: str) -> None:
        with tracer.start_as_current_span(name):
            await arun(sample_machine(), Mem(), shell)

    async def both() -> None:
        await asyncio.gather(one("request A"), one("request B"), *(parallel_agent(tracing.observer).arun(),))

    asyncio.run(both())
    trees = sorted(tracing.trees())
    assert trees[0][0] == "invoke_agent react" and len(trees[0][1]) == 4
    assert trees[1:] == [
        ("request A", (("invoke_agent sample", (("Ask", ()),) * 3),)),
        ("request B", (("invoke_agent sample", (("Ask", ()),) * 3),)),
    ]
    roots = {s.context.trace_id for s in tracing.roots() if s.context is not None}
    assert len(roots) == 3


def _start() -> RunStart:
    return RunStart(machine=sample_machine(), state=S.IDLE, memory=Mem(), steps=0, resumed=False)  # type: ignore[arg-type]  # any machine


def test_without_an_sdk_the_observer_leaves_runs_alone() -> None:
    off = OtelObserver(tracer_provider=trace.NoOpTracerProvider(), meter_provider=NoOpMeterProvider())
    assert off.run_started(_start()) is None
    assert (
        OtelObserver(
            tracer_provider=trace.ProxyTracerProvider(), meter_provider=NoOpMeterProvider()
        ).run_started(_start())
        is None
    )


def test_metrics_alone_are_still_recorded() -> None:
    tracing = traced()
    metrics_only = OtelObserver(
        tracer_provider=trace.NoOpTracerProvider(), meter_provider=tracing.meter_provider
    )
    run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 1), StepClock(), metrics_only))
    assert tracing.spans() == ()
    assert [p.count for p in tracing.histogram("gen_ai.client.operation.duration")] == [1]


def test_trace_context_is_empty_for_an_untraced_snapshot_and_continuing_ignores_junk() -> None:
    tracing = traced()
    done = run(
        sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 1), StepClock(), tracing.observer)
    )
    assert trace_context(done.unwrap()) == {}
    with continuing({"traceparent": "not a traceparent"}):
        run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 1), StepClock(), tracing.observer))
    assert all(not s.links for s in tracing.spans())


def test_the_agent_id_is_the_fingerprint_the_durable_store_keeps(tmp_path: Path) -> None:
    store = SqliteStore.open(tmp_path / "runs.db").unwrap()
    TRACING.exporter.clear()
    stored = TRACED_ORDERS.start(store, Order(items=1)).unwrap()
    (span,) = TRACING.named("invoke_agent orders")
    kept = store.get(stored.run_id).unwrap().fingerprint
    store.close()
    assert (span.attributes or {})["gen_ai.agent.id"] == kept == machine_fingerprint(ORDERS)


@pytest.mark.parametrize("name", ["my agent"])
def test_the_agent_name_and_id_can_be_set(name: str) -> None:
    tracing = traced(agent_name=name, agent_id="agent-7")
    run(sample_machine(), Mem(), Shell(Performers().on(Ask, lambda _e: 1), StepClock(), tracing.observer))
    (root,) = tracing.roots()
    assert root.name == f"invoke_agent {name}"
    assert (root.attributes or {})["gen_ai.agent.id"] == "agent-7"
    assert (root.attributes or {})["agentsm.machine.name"] == "sample"
