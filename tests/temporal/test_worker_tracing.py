"""What a tracing worker adds to its client, and what it refuses (agentsm_fn.temporal.tracing)."""

from __future__ import annotations

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from temporalio.client import Client
from temporalio.contrib.opentelemetry import OpenTelemetryPlugin, create_tracer_provider

from agentsm_fn.otel import OtelObserver
from agentsm_fn.temporal import connect
from agentsm_fn.temporal.tracing import NEEDS_REPLAY_SAFE, plugins_for_worker


def test_a_worker_adds_the_plugin_when_its_client_has_none(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    safe = create_tracer_provider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: safe)  # as if set globally, for this test only
    observer = OtelObserver()
    (added,) = plugins_for_worker(client, observer)
    assert isinstance(added, OpenTelemetryPlugin)


async def test_a_client_that_traces_already_carries_the_plugin(
    temporal_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    safe = create_tracer_provider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: safe)
    traced = await connect(temporal_target, tracing=True)
    assert plugins_for_worker(traced, OtelObserver()) == []


def test_a_provider_that_is_not_replay_safe_is_refused(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = TracerProvider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: plain)
    with pytest.raises(ValueError, match="replay-safe tracer provider"):
        plugins_for_worker(client, OtelObserver())
    safe = create_tracer_provider()  # the observer's own is safe, the global one is not: still refused
    with pytest.raises(ValueError) as refused:
        plugins_for_worker(client, OtelObserver(tracer_provider=safe))
    assert str(refused.value) == NEEDS_REPLAY_SAFE
