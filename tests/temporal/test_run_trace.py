"""A workflow's run span never breaks its run: an exporter that raises is logged, as in a local run."""

from __future__ import annotations

import enum
import logging
from typing import cast

import pytest
from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor, TracerProvider
from opentelemetry.trace import Tracer
from returns.result import Success
from temporalio import workflow

from agentsm_fn import Machine, Snapshot
from agentsm_fn.otel import OtelObserver
from agentsm_fn.shell import Performers
from agentsm_fn.temporal.activity import EffectActivities
from agentsm_fn.temporal.run_trace import RunTrace
from tests.temporal.machines import ORDERS, Order


class Refusing(SpanProcessor):
    """A span processor whose exporter is down: ending a span raises."""

    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("the collector is down")


@pytest.mark.parametrize("how", ["finished", "continued", "cancelled"])
def test_a_span_that_cannot_end_is_logged_and_the_run_goes_on(
    how: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(workflow.unsafe, "is_replaying_history_events", lambda: False)  # as live, outside one
    provider = TracerProvider()
    provider.add_span_processor(Refusing())
    machine = cast(Machine[enum.Enum, enum.Enum, object], ORDERS)
    order = Order(order_id="o", amount=1)
    start = cast(Snapshot[enum.Enum, object], Snapshot(state=ORDERS.initial, memory=order))
    traced = RunTrace(OtelObserver(tracer_provider=provider), machine, start)
    assert traced.watching is not None
    with caplog.at_level(logging.ERROR):
        traced.ended(Success(start), continued=how == "continued", cancelled=how == "cancelled")
    assert "the collector is down" in caplog.text


class BrokenObserver(OtelObserver):
    """An observer that fails while it starts watching effects (a tracer it cannot get)."""

    def _tracer(self) -> Tracer:
        raise RuntimeError("no tracer today")


def test_an_observer_that_cannot_watch_an_activitys_effects_leaves_them_untraced(
    caplog: pytest.LogCaptureFixture,
) -> None:
    performers = Performers()
    activities = EffectActivities(performers, threads=1, observer=BrokenObserver())
    caller = TracerProvider().get_tracer("caller")
    with caller.start_as_current_span("run"), caplog.at_level(logging.ERROR):  # a traced run's context
        assert activities._performers("orders") is performers
    assert "no tracer today" in caplog.text
    activities.threads.shutdown()
