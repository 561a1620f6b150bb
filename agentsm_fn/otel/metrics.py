"""The two GenAI client histograms: token usage and operation duration, as the conventions name them.

``gen_ai.client.token.usage`` (unit ``{token}``) is recorded twice per LLM reply, with
``gen_ai.token.type`` ``input`` and ``output``; ``gen_ai.client.operation.duration``
(unit ``s``) once per ``chat``, ``execute_tool`` and ``invoke_agent`` operation, with
``error.type`` when it failed. Bucket boundaries are the conventions' advice.
"""

from __future__ import annotations

from collections.abc import Mapping

from opentelemetry.metrics import Histogram, Meter
from opentelemetry.util.types import AttributeValue

from agentsm_fn.otel import names

__all__ = ["Instruments"]

_TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864)
_DURATION_BUCKETS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92)
_METRIC_KEYS = (
    names.OPERATION_NAME,
    names.PROVIDER_NAME,
    names.REQUEST_MODEL,
    names.RESPONSE_MODEL,
    names.TOOL_NAME,
    names.AGENT_NAME,
)
"""The span attributes a measurement carries (low cardinality only: no ids, no content)."""


class Instruments:
    """The histograms of one meter.

    Example:
        >>> from opentelemetry.metrics import NoOpMeter
        >>> Instruments(NoOpMeter("x")).duration({names.OPERATION_NAME: "chat"}, 0.5, None)
    """

    __slots__ = ("_duration", "_tokens")

    def __init__(self, meter: Meter) -> None:
        self._tokens: Histogram = meter.create_histogram(
            names.TOKEN_USAGE,
            unit="{token}",
            description="Number of input and output tokens used.",
            explicit_bucket_boundaries_advisory=list(map(float, _TOKEN_BUCKETS)),
        )
        self._duration: Histogram = meter.create_histogram(
            names.OPERATION_DURATION,
            unit="s",
            description="GenAI operation duration.",
            explicit_bucket_boundaries_advisory=list(_DURATION_BUCKETS),
        )

    def duration(self, span: Mapping[str, AttributeValue], seconds: float, error_type: str | None) -> None:
        """Record one operation's duration with the span's low-cardinality attributes."""
        attributes = {key: span[key] for key in _METRIC_KEYS if key in span}
        if error_type is not None:
            attributes[names.ERROR_TYPE] = error_type
        self._duration.record(seconds, attributes)

    def tokens(self, span: Mapping[str, AttributeValue], input_tokens: int, output_tokens: int) -> None:
        """Record one reply's input and output token counts."""
        attributes = {key: span[key] for key in _METRIC_KEYS if key in span}
        self._tokens.record(input_tokens, {**attributes, names.TOKEN_TYPE: "input"})
        self._tokens.record(output_tokens, {**attributes, names.TOKEN_TYPE: "output"})
