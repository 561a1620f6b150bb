"""A run whose fold and whose effects run in different processes (Temporal): its spans still nest.

The process that folds the run holds its ``invoke_agent`` span, started by
:meth:`~agentsm_fn.otel.OtelObserver.run_started` as for a local run. While it hands an
effect to another process, :func:`run_context` makes that span the current one, so the
propagator that carries the context (Temporal's headers) carries it. The process that
performs the effect asks :func:`effects_here` for a watch whose effects' spans are
children of the current span, the carried one: the same spans, names and attributes
as a local run's effects, made where the performer runs (so its own spans nest under
them). Only the effect spans live there; the run span is ended by the fold's process.
"""

from __future__ import annotations

import contextlib
from contextlib import AbstractContextManager

from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from agentsm_fn.core.observe import RunEnd, RunWatch
from agentsm_fn.otel import names
from agentsm_fn.otel.observer import Attributes, OtelObserver, _RunSpan

__all__ = ["effects_here", "end_cancelled", "end_continued", "run_context"]


def run_context(watch: RunWatch | None, *, unless_inside: bool = False) -> AbstractContextManager[object]:
    """Inside, the run's span is the current span (nothing happens for another kind of watch).

    ``unless_inside``: leave the current context as it is when it already has a span (the
    caller's): a run that continues as new then goes on under its caller, else under this run.

    Example:
        >>> with run_context(None):
        ...     pass
    """
    if not isinstance(watch, _RunSpan):
        return contextlib.nullcontext()
    if unless_inside and trace.get_current_span().get_span_context().is_valid:
        return contextlib.nullcontext()
    return trace.use_span(
        watch.span, end_on_exit=False, record_exception=False, set_status_on_exception=False
    )


def effects_here(observer: OtelObserver, agent: str) -> RunWatch | None:
    """A watch for effects performed here of a run traced elsewhere, whose span is the current one.

    ``agent`` names the agent when the observer does not (the machine's name). None when
    no span is current (the run was not traced).

    Example:
        >>> effects_here(OtelObserver(), "orders") is None
        True
    """
    span = trace.get_current_span()
    if not span.get_span_context().is_valid:
        return None
    tracer = observer._tracer()
    attributes: Attributes = {names.AGENT_NAME: observer.agent_name or agent}
    return _RunSpan(observer, tracer, observer._instruments(look=True), span, attributes, observer._capture())


def end_continued(watch: RunWatch, end: RunEnd) -> None:
    """End the run's span: it continues as new (status ``continued``), in the same trace.

    Example:
        >>> import enum
        >>> from agentsm_fn.core.snapshot import Snapshot
        >>> class S(enum.Enum):
        ...     A = 1
        >>> end = RunEnd(snapshot=Snapshot(state=S.A, memory=0), reason=None)
        >>> end_continued(None, end)  # type: ignore[arg-type]  # any watch: only a run span ends
    """
    if isinstance(watch, _RunSpan):  # not run_ended: the snapshot is parked, but no one is asked anything
        watch.span.set_attribute(names.RUN_CONTINUED, True)
        watch.close(end.snapshot, "continued")


def end_cancelled(watch: RunWatch, end: RunEnd) -> None:
    """End the run's span: the run was cancelled (status ERROR, ``agentsm.run.status=cancelled``).

    Example:
        >>> import enum
        >>> from agentsm_fn.core.snapshot import Snapshot
        >>> class S(enum.Enum):
        ...     A = 1
        >>> end = RunEnd(snapshot=Snapshot(state=S.A, memory=0), reason=None)
        >>> end_cancelled(None, end)  # type: ignore[arg-type]  # any watch: only a run span ends
    """
    if isinstance(watch, _RunSpan):
        watch.span.set_status(Status(StatusCode.ERROR, "cancelled"))
        watch.close(end.snapshot, "cancelled", error_type="cancelled")
