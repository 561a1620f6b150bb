"""OpenTelemetry traces and metrics for runs, per the GenAI semantic conventions (extra ``otel``).

Give an :class:`OtelObserver` to a shell (``Shell(observer=OtelObserver())``), to the
ReAct agent's builder (``.observe(OtelObserver())``) or to ``AgentFSM(observer=...)``;
configure the OpenTelemetry SDK and an exporter as usual. A suspended run's
:func:`trace_context` goes with the stored run; resume it inside :func:`continuing`
and the new run's span links to the first. ``import agentsm_fn`` never imports this
package (nor OpenTelemetry). Span tree and attributes: docs/observability.md.
"""

from agentsm_fn.otel.links import continuing, trace_context
from agentsm_fn.otel.observer import CAPTURE_CONTENT_ENV, OtelObserver

__all__ = ["CAPTURE_CONTENT_ENV", "OtelObserver", "continuing", "trace_context"]
