"""Traces across the client, the workflow and the workers (imported only when tracing is asked for).

The W3C trace context travels in Temporal's headers, carried by the Temporal SDK's own
OpenTelemetry plugin (``temporalio.contrib.opentelemetry.OpenTelemetryPlugin``, with its
Temporal-specific spans left off): from the client that starts a run into the workflow
(the header is in the run's history, so a worker that takes the run over reads the same
one, and it goes along when the run continues as new), and from the workflow into each
effect's activity. The workflow's ``invoke_agent`` span needs span ids that come out the
same when the run is replayed, on this worker or another, and a span that is ended only
once: the Temporal SDK's replay-safe tracer provider gives both
(``temporalio.contrib.opentelemetry.create_tracer_provider``), and a worker that traces
refuses any other. Its spans are ended only outside replay.
"""

from __future__ import annotations

from typing import Final

import attrs
from opentelemetry import trace
from opentelemetry.metrics import NoOpMeterProvider
from temporalio.client import Client
from temporalio.contrib.opentelemetry import OpenTelemetryPlugin, ReplaySafeTracerProvider
from temporalio.plugin import SimplePlugin

from agentsm_fn.otel import OtelObserver

__all__ = ["NEEDS_REPLAY_SAFE", "for_workflow", "plugins_for_worker", "tracing_plugin"]

NEEDS_REPLAY_SAFE: Final = (
    "a worker that traces runs needs a replay-safe tracer provider: "
    "temporalio.contrib.opentelemetry.create_tracer_provider(), set as the global one "
    "(opentelemetry.trace.set_tracer_provider) before the worker is made"
)


def tracing_plugin() -> SimplePlugin:
    """The Temporal SDK's OpenTelemetry plugin: it carries the trace context in headers (no spans of its own).

    Example:
        >>> tracing_plugin().name()
        'OpenTelemetryPlugin'
    """
    return OpenTelemetryPlugin(add_temporal_spans=False)


def plugins_for_worker(client: Client, observer: OtelObserver) -> list[SimplePlugin]:
    """The plugin a tracing worker adds (none if its client already has it); refuses an unsafe provider.

    Raises:
        ValueError: the tracer provider is not replay-safe (a programmer error at construction).
    """
    provider = observer.tracer_provider or trace.get_tracer_provider()
    global_provider = trace.get_tracer_provider()
    if not isinstance(provider, ReplaySafeTracerProvider) or not isinstance(
        global_provider, ReplaySafeTracerProvider
    ):
        raise ValueError(NEEDS_REPLAY_SAFE)
    has = any(isinstance(p, OpenTelemetryPlugin) for p in client.config()["plugins"])
    return [] if has else [tracing_plugin()]


def for_workflow(observer: OtelObserver) -> OtelObserver:
    """The observer the workflow uses: no metrics (a run outlives the worker that started it).

    Example:
        >>> for_workflow(OtelObserver()).meter_provider is not None
        True
    """
    return attrs.evolve(observer, meter_provider=NoOpMeterProvider())
