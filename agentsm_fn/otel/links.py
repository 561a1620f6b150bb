"""A suspended run's trace context: carried with the stored run, linked to by its continuation.

When a traced run suspends (a human approval, say), :func:`trace_context` gives the
W3C trace context of its ``invoke_agent`` span as a small ``{"traceparent": ...}``
mapping: store it next to the snapshot. The run that continues it, in this process or
another, starts its own span (under the caller's current span, as every run does) with
a *link* to the first one: resume inside ``with continuing(context):``. In the same
process the link is made without being asked when the very snapshot object the run
returned is resumed. A durable store carries the mapping with the run the same way.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import weakref
from collections.abc import Iterator, Mapping
from typing import Final

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import SpanContext
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

__all__ = ["NEST", "carrier", "continuing", "link_for", "nest_carrier", "remember", "trace_context"]

NEST: Final = "agentsm-nest"
"""The key of a carrier a run nests under (a child run under its parent's effect), rather than links to."""

_PROPAGATOR: Final = TraceContextTextMapPropagator()
_CONTINUING: Final[contextvars.ContextVar[SpanContext | None]] = contextvars.ContextVar(
    "agentsm_fn_otel_continuing", default=None
)
_lock = threading.Lock()
_suspended: dict[int, tuple[weakref.ref[object], SpanContext]] = {}


def carrier(context: SpanContext) -> dict[str, str]:
    """The W3C trace context of ``context`` as a small mapping of strings (``{}`` if it is not valid).

    Example:
        >>> carrier(trace.INVALID_SPAN_CONTEXT)
        {}
    """
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=trace.set_span_in_context(trace.NonRecordingSpan(context)))
    return carrier


def nest_carrier() -> dict[str, str]:
    """The current span's context, for a run to nest under (``{}`` if there is no valid current span).

    Example:
        >>> nest_carrier()
        {}
    """
    found = carrier(trace.get_current_span().get_span_context())
    return {**found, NEST: "1"} if found else {}


def remember(snapshot: object, context: SpanContext) -> None:
    """Note that the run that returned ``snapshot`` (suspended) was traced as ``context``.

    Kept as long as the snapshot object lives (a weak reference), so nothing leaks.
    """
    key = id(snapshot)

    def forget(_ref: weakref.ref[object], key: int = key) -> None:
        with _lock:
            _suspended.pop(key, None)

    with _lock:
        _suspended[key] = (weakref.ref(snapshot, forget), context)


def _remembered(snapshot: object) -> SpanContext | None:
    with _lock:
        found = _suspended.get(id(snapshot))
    if found is None or found[0]() is not snapshot:
        return None
    return found[1]


def trace_context(snapshot: object) -> dict[str, str]:
    """The W3C trace context of the traced run that returned ``snapshot``; ``{}`` if none.

    Store it with a suspended run; pass it to :func:`continuing` when the run is resumed.

    Example:
        >>> trace_context(object())
        {}
    """
    context = _remembered(snapshot)
    return {} if context is None else carrier(context)


@contextlib.contextmanager
def continuing(context: Mapping[str, str]) -> Iterator[None]:
    """Runs started inside link to the run traced as ``context`` (from :func:`trace_context`).

    An empty or unreadable mapping links to nothing. A mapping from :func:`nest_carrier` (a
    child run's, saved by its parent's effect) is the parent of the runs started inside, not a link.

    Example:
        >>> with continuing({}):
        ...     pass
    """
    extracted = _PROPAGATOR.extract(dict(context))
    if context.get(NEST):
        attached = otel_context.attach(extracted)
        try:
            yield
        finally:
            otel_context.detach(attached)
        return
    span_context = trace.get_current_span(extracted).get_span_context()
    token = _CONTINUING.set(span_context if span_context.is_valid else None)
    try:
        yield
    finally:
        _CONTINUING.reset(token)


def link_for(snapshot: object | None) -> SpanContext | None:
    """The span context a run continuing from ``snapshot`` links to, if any.

    Example:
        >>> link_for(None) is None
        True
    """
    explicit = _CONTINUING.get()
    if explicit is not None:
        return explicit
    return None if snapshot is None else _remembered(snapshot)
