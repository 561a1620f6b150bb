"""Tracing test kit: an SDK tracer and meter with in-memory exporters, and span trees to compare."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import attrs
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import HistogramDataPoint, InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agentsm_fn.otel import OtelObserver

Tree = tuple[str, tuple["Tree", ...]]


@attrs.define
class Traced:
    """An observer wired to in-memory span and metric exporters."""

    exporter: InMemorySpanExporter
    reader: InMemoryMetricReader
    tracer_provider: TracerProvider
    meter_provider: MeterProvider
    observer: OtelObserver

    def spans(self) -> tuple[ReadableSpan, ...]:
        return tuple(self.exporter.get_finished_spans())

    def roots(self) -> list[ReadableSpan]:
        ids = {s.context.span_id for s in self.spans() if s.context is not None}
        return [s for s in self.spans() if s.parent is None or s.parent.span_id not in ids]

    def children(self, span: ReadableSpan) -> list[ReadableSpan]:
        assert span.context is not None
        found = [s for s in self.spans() if s.parent is not None and s.parent.span_id == span.context.span_id]
        return sorted(found, key=lambda s: (s.start_time or 0, s.name))

    def tree(self, span: ReadableSpan) -> Tree:
        return span.name, tuple(self.tree(child) for child in self.children(span))

    def trees(self) -> list[Tree]:
        return [self.tree(root) for root in sorted(self.roots(), key=lambda s: s.start_time or 0)]

    def named(self, name: str) -> list[ReadableSpan]:
        return sorted((s for s in self.spans() if s.name == name), key=lambda s: s.start_time or 0)

    def histogram(self, name: str) -> list[HistogramDataPoint]:
        data = self.reader.get_metrics_data()
        points: list[HistogramDataPoint] = []
        for resource in data.resource_metrics if data is not None else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        points.extend(p for p in metric.data.data_points if isinstance(p, HistogramDataPoint))
        return points


def traced(**options: object) -> Traced:
    """A fresh observer (``options`` go to :class:`OtelObserver`) with its own providers."""
    exporter = InMemorySpanExporter()
    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    observer = OtelObserver(tracer_provider=tracer_provider, meter_provider=meter_provider, **options)  # type: ignore[arg-type]  # keyword options of OtelObserver
    return Traced(exporter, reader, tracer_provider, meter_provider, observer)


def operations(points: Sequence[HistogramDataPoint]) -> list[str]:
    """The ``gen_ai.operation.name`` of each data point, sorted."""
    return sorted(str((p.attributes or {}).get("gen_ai.operation.name")) for p in points)


def transitions(span: ReadableSpan) -> list[tuple[object, ...]]:
    """The run span's transition events as (step, state, event, target)."""
    return [
        tuple(
            (e.attributes or {})[k]
            for k in ("agentsm.step", "agentsm.state", "agentsm.event", "agentsm.target")
        )
        for e in span.events
        if e.name == "agentsm.transition"
    ]


def attributes(span: ReadableSpan, keys: Sequence[str] | None = None) -> Mapping[str, object]:
    """The span's attributes (only ``keys``, if given), as a plain dict."""
    found = dict(span.attributes or {})
    return found if keys is None else {k: found[k] for k in keys if k in found}
