"""The OpenTelemetry observer: a run becomes an ``invoke_agent`` span with a child span per effect.

::

    invoke_agent {agent}              one per run (under the caller's current span)
    ├── chat {model}                  an LlmCall
    ├── execute_tool {tool}           a tool call (a parallel batch: one per call, overlapping)
    ├── {EffectClass}                 any other effect (a human approval, your own)
    └── events: agentsm.transition    one per transition (step, state, event, target)

Failures set the span status (and ``error.type``); metrics are the conventions'
``gen_ai.client.token.usage`` and ``gen_ai.client.operation.duration``. While a
performer runs, its effect's span is the current span, so spans it makes (an HTTP
client's, a tool's own) nest under it. With neither tracing nor metrics configured (the
OpenTelemetry API without an SDK) a run is not watched at all.

One idea over 300 lines: the observer and the three span holders it hands the shell (a
run's, an effect's, a batch's), which read its settings.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Final

import attrs
from opentelemetry import context, metrics, trace
from opentelemetry.metrics import MeterProvider, NoOpMeterProvider
from opentelemetry.trace import Span, Status, StatusCode, Tracer, TracerProvider
from opentelemetry.util.types import AttributeValue

from agentsm_fn.agents.guardrails import Guarding
from agentsm_fn.core.driver import SUSPEND
from agentsm_fn.core.effect_failures import FailureKind
from agentsm_fn.core.effects import Effect
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunStart, RunWatch
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.core.snapshot import Status as RunStatus
from agentsm_fn.llm.replies import LlmReply
from agentsm_fn.otel import genai, links, names
from agentsm_fn.otel.guardrails import guarding_states, guardrail_event
from agentsm_fn.otel.metrics import Instruments
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["CAPTURE_CONTENT_ENV", "OtelObserver"]

CAPTURE_CONTENT_ENV: Final = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
"""The environment variable OpenTelemetry's GenAI instrumentations read: ``true`` records content."""
_SCOPE: Final = "agentsm_fn"

Attributes = dict[str, AttributeValue]
_RUN_SPAN: Final = context.create_key("agentsm_fn.run_span")
"""The run's span, in the context its effects are performed in (for :meth:`OtelObserver.trace_carrier`)."""


def _metrics_off(provider: MeterProvider) -> bool:
    # the API's stand-in before an SDK is installed is private; its class name is what we can test
    return isinstance(provider, NoOpMeterProvider) or type(provider).__name__ == "_ProxyMeterProvider"


class _Global:
    """The global tracer, obtained once through the public API, and the global meter provider once set.

    ``trace.get_tracer`` gives the API's proxy tracer while no SDK is installed; it
    delegates to the real provider as soon as one is set, so it is obtained once and a
    run asks it for its span: a span that is not recording means tracing is off. Global
    providers can be set only once, so a real meter provider, once seen, is kept; it is
    looked up (with the public getter, which reads the environment) when an observer is
    made and when a traced run starts, never on a run that is declined.
    """

    tracer: Tracer | None = None
    meter_provider: MeterProvider | None = None


def _global_tracer() -> Tracer:
    tracer = _Global.tracer
    if tracer is None:
        tracer = _Global.tracer = trace.get_tracer(_SCOPE)
    return tracer


def _global_meter_provider() -> MeterProvider | None:
    """The global meter provider; None while it is the API's stand-in (no SDK installed)."""
    found = _Global.meter_provider
    if found is None:
        provider = metrics.get_meter_provider()
        if _metrics_off(provider):
            return None
        found = _Global.meter_provider = provider
    return found


@attrs.frozen(kw_only=True)
class OtelObserver:
    """Traces runs with the GenAI conventions; give it to a shell, an agent builder or ``AgentFSM``.

    ``tracer_provider``/``meter_provider``: None uses the global ones.
    ``capture_content``: record prompts, completions, tool arguments and results (private
    data: off unless True, or None and ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``).
    ``agent_name``/``agent_id``: default to the machine's name and its
    :func:`~agentsm_fn.machine_fingerprint` (the durable store's and Temporal's).
    ``provider_name``: ``gen_ai.provider.name`` when a reply does not say (a scripted LLM).
    ``error_states``: names of terminal states that mean the run failed (the built-in
    agents' ``Error`` and ``HALT``).

    Example:
        >>> from agentsm_fn import Shell
        >>> shell = Shell(observer=OtelObserver(capture_content=False))
        >>> shell.observer.capture_content
        False
    """

    tracer_provider: TracerProvider | None = None
    meter_provider: MeterProvider | None = None
    capture_content: bool | None = None
    agent_name: str | None = None
    agent_id: str | None = None
    provider_name: str | None = None
    error_states: frozenset[str] = frozenset({"Error", "HALT"})
    _cache: dict[int, tuple[object, object]] = attrs.field(init=False, factory=dict, eq=False, repr=False)

    def _tracer(self) -> Tracer:
        provider = self.tracer_provider
        if provider is None:
            return _Global.tracer or _global_tracer()
        found = self._cache.get(id(provider))
        if found is None or found[0] is not provider:
            found = self._cache[id(provider)] = (provider, provider.get_tracer(_SCOPE))
        return found[1]  # type: ignore[return-value]  # stored just above as a Tracer

    def __attrs_post_init__(self) -> None:
        if self.meter_provider is None:
            _global_meter_provider()  # metrics without traces: the global provider set before now

    def _instruments(self, look: bool) -> Instruments | None:
        """The instruments of the meter provider (``look``: ask the global getter if none is known yet)."""
        provider = self.meter_provider or (_global_meter_provider() if look else _Global.meter_provider)
        if provider is None or _metrics_off(provider):
            return None
        found = self._cache.get(id(provider))
        if found is None or found[0] is not provider:
            found = self._cache[id(provider)] = (provider, Instruments(provider.get_meter(_SCOPE)))
        return found[1]  # type: ignore[return-value]  # stored just above as Instruments

    def trace_carrier(self) -> dict[str, str]:
        """The W3C trace context of the traced run whose effect is being performed here; ``{}`` if none.

        A durable run saves it with the run (see docs/durable-runs.md).

        Example:
            >>> OtelObserver().trace_carrier()
            {}
        """
        span = context.get_value(_RUN_SPAN)
        if not isinstance(span, Span) or not span.get_span_context().is_valid:
            return {}
        return links.carrier(span.get_span_context())

    def effect_carrier(self) -> dict[str, str]:
        """The context of the effect being performed here, for the child runs it starts to nest under.

        Example:
            >>> OtelObserver().effect_carrier()
            {}
        """
        return links.nest_carrier()

    def continuing(self, carrier: Mapping[str, str]) -> AbstractContextManager[None]:
        """Runs started inside link to the run traced as ``carrier`` (:func:`~agentsm_fn.otel.continuing`).

        Example:
            >>> with OtelObserver().continuing({}):
            ...     pass
        """
        return links.continuing(carrier)

    def run_started(self, start: RunStart) -> RunWatch | None:
        """Start the run's ``invoke_agent`` span; None when neither traces nor metrics are on.

        The span is started with its name alone and asked whether it records (the
        cheapest public question: the API's proxy tracer answers it while no SDK is
        installed); a recording span then gets its attributes and link.
        """
        machine = start.machine
        agent = self.agent_name or machine.name or "agent"
        tracer = (_Global.tracer or _global_tracer()) if self.tracer_provider is None else self._tracer()
        span = tracer.start_span(names.INVOKE_AGENT)  # kind: INTERNAL, the default; named below
        traced = span.is_recording()
        if not traced and self.meter_provider is None and _Global.meter_provider is None:
            return None  # tracing off (no SDK, or not sampled), no metrics: the cheapest no
        if traced:
            span.update_name(f"{names.INVOKE_AGENT} {agent}")
        instruments = self._instruments(look=traced)
        if not traced and instruments is None:
            return None
        attributes: Attributes = {
            names.OPERATION_NAME: names.INVOKE_AGENT,
            names.AGENT_NAME: agent,
            names.AGENT_ID: self.agent_id or machine_fingerprint(machine),  # cached by machine_fingerprint
            names.MACHINE_NAME: machine.name,
        }
        if start.resumed:
            attributes[names.RUN_RESUMED] = True
        if traced:
            span.set_attributes(attributes)
            linked = links.link_for(start.snapshot if start.resumed else None)
            if linked is not None:
                span.add_link(linked)
        else:
            tracer = trace.NoOpTracer()
        pending = start.snapshot.pending if start.snapshot is not None else None
        if start.resumed and pending is not None:
            span.add_event(names.RESUMED_EVENT, {names.EFFECT_TYPE: type(pending).__name__})
        guarding = guarding_states(machine, start.memory)
        if guarding and traced:
            return _GuardedRunSpan(self, tracer, instruments, span, attributes, self._capture(), guarding)
        return _RunSpan(self, tracer, instruments, span, attributes, self._capture())

    def _capture(self) -> bool:
        """Whether content is recorded (the option, else the environment variable)."""
        if self.capture_content is not None:
            return self.capture_content
        return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() == "true"


class _RunSpan:
    """One run's span; the parent of its effects' spans."""

    def __init__(
        self,
        observer: OtelObserver,
        tracer: Tracer,
        instruments: Instruments | None,
        span: Span,
        attributes: Attributes,
        capture: bool,
    ) -> None:
        self.observer, self.tracer, self.instruments = observer, tracer, instruments
        self.span, self.attributes, self.capture = span, attributes, capture
        self.since = time.perf_counter()

    def transition(self, step: int, state: object, event: object, target: object, at: float) -> None:
        """A span event on the run span."""
        self.span.add_event(
            names.TRANSITION_EVENT,
            {
                names.TRANSITION_STEP: step,
                names.TRANSITION_STATE: getattr(state, "name", str(state)),
                names.TRANSITION_EVENT_NAME: getattr(event, "name", str(event)),
                names.TRANSITION_TARGET: getattr(target, "name", str(target)),
            },
        )

    def start_span(self, opening: genai.Opening, start_time: int | None = None) -> Span:
        """A child of the run span."""
        parent = trace.set_span_in_context(self.span)
        return self.tracer.start_span(
            opening.name,
            context=parent,
            kind=opening.kind,
            attributes=opening.attributes,
            start_time=start_time,
        )

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        """A span for the effect (none for a batch of tool calls: its calls get them)."""
        target = effect.underlying()
        if isinstance(within, _Batch):
            within.part()
        if genai.is_batch(target, part=within is not None):
            return _Batch(self, target)
        return _EffectSpan(self, target, genai.opening(target, self.capture))

    def run_ended(self, end: RunEnd) -> None:
        """Status, final state and steps; a suspended run's context is kept for its continuation."""
        snapshot, span = end.snapshot, self.span
        error_type: str | None = None
        if end.reason is not None:
            error_type = type(end.reason).__name__
            span.set_status(Status(StatusCode.ERROR, end.reason.describe()))
            status = "failed"
        elif snapshot.status is RunStatus.AWAITING:
            links.remember(snapshot, span.get_span_context())
            status = "awaiting"
        else:
            status = "finished"
            if snapshot.state.name in self.observer.error_states:
                error_type = snapshot.state.name
                said = getattr(snapshot.memory, "error", None)
                span.set_status(
                    Status(StatusCode.ERROR, said if isinstance(said, str) and said else error_type)
                )
        if self.instruments is not None:
            self.instruments.duration(self.attributes, time.perf_counter() - self.since, error_type)
        self.close(snapshot, status, error_type)

    def close(
        self, snapshot: Snapshot[enum.Enum, object], status: str, error_type: str | None = None
    ) -> None:
        """Status, final state and steps (and ``error.type`` if given), then the span ends."""
        span = self.span
        span.set_attributes(
            {
                names.RUN_STATUS: status,
                names.RUN_FINAL_STATE: snapshot.state.name,
                names.RUN_STEPS: snapshot.steps,
            }
        )
        if error_type is not None:
            span.set_attribute(names.ERROR_TYPE, error_type)
        span.end()


class _GuardedRunSpan(_RunSpan):
    """A run span of a machine with guarding states: it also watches the memory after their rows."""

    def __init__(
        self,
        observer: OtelObserver,
        tracer: Tracer,
        instruments: Instruments | None,
        span: Span,
        attributes: Attributes,
        capture: bool,
        guarding: Mapping[object, Guarding[enum.Enum, object, object]],
    ) -> None:
        super().__init__(observer, tracer, instruments, span, attributes, capture)
        self.guarding = guarding
        self.left: tuple[Guarding[enum.Enum, object, object], object] | None = None

    def transition(self, step: int, state: object, event: object, target: object, at: float) -> None:
        """The transition's event; one out of a guarding state is reported with the memory after it."""
        super().transition(step, state, event, target, at)
        handler = self.guarding.get(state)
        self.left = None if handler is None else (handler, event)

    def memory_after(self, step: int, memory: object) -> None:
        """An ``agentsm.guardrail`` event after a guarding state's row (the last trip on the run span)."""
        if self.left is None:
            return
        (handler, event), self.left = self.left, None
        attributes = guardrail_event(handler, event, memory, self.capture)
        self.span.add_event(names.GUARDRAIL_EVENT, attributes)
        tripped = attributes.get(names.GUARDRAIL_NAME)
        if tripped is not None:
            self.span.set_attribute(names.GUARDRAIL_NAME, tripped)


class _EffectSpan:
    """One effect's span, current while its performer runs."""

    def __init__(self, run: _RunSpan, effect: Effect[object], opening: genai.Opening) -> None:
        self.run, self.effect, self.opening = run, effect, opening
        self.span = run.start_span(opening)
        current = trace.set_span_in_context(self.span)
        self.token = context.attach(context.set_value(_RUN_SPAN, run.span, current))

    def _finish(
        self,
        attributes: Attributes,
        error_type: str | None,
        description: str,
        seconds: float,
        tokens: tuple[int, int] | None = None,
    ) -> None:
        context.detach(self.token)
        span = self.span
        span.set_attributes(attributes)
        if error_type is not None:
            span.set_attribute(names.ERROR_TYPE, error_type)
            span.set_status(Status(StatusCode.ERROR, description or error_type))
        instruments = self.run.instruments
        if instruments is not None and self.opening.what is not genai.Kind.OTHER:
            agent = self.run.attributes[names.AGENT_NAME]
            measured = {**self.opening.attributes, **attributes, names.AGENT_NAME: agent}
            instruments.duration(measured, seconds, error_type)
            if tokens is not None:
                instruments.tokens(measured, *tokens)
        span.end()

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """The outcome's attributes; a failed LLM call or tool sets the error."""
        if outcome is SUSPEND:
            self._finish({names.EFFECT_SUSPENDED: True}, None, "", seconds)
            return
        settled = genai.settled(self.effect, outcome, self.run.observer.provider_name, self.run.capture)
        usage = outcome.usage if isinstance(outcome, LlmReply) else None
        tokens = None if usage is None else (usage.input_tokens, usage.output_tokens)
        self._finish(settled.attributes, settled.error_type, settled.description, seconds, tokens)

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """The performer raised: the exception's type is the error (the conventions' rule for exceptions)."""
        kind = type(error).__qualname__
        failure: Attributes = {names.EFFECT_FAILURE: FailureKind.RAISED.value}
        self._finish(failure, kind, redact_credentials(f"performer raised {kind}: {error}")[:500], seconds)


class _Batch:
    """A batch of tool calls: no span; its calls report themselves as parts (or are made up at the end)."""

    def __init__(self, run: _RunSpan, effect: Effect[object]) -> None:
        self.run, self.effect = run, effect
        self.started = time.time_ns()
        self.parts = 0

    def part(self) -> None:
        self.parts += 1

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """If the performer did not report its calls, one span per call spans the whole batch."""
        if self.parts:
            return
        capture = self.run.capture
        outcomes = genai.batch_outcomes(self.effect, outcome)
        for call, result in zip(genai.batch_calls(self.effect), outcomes, strict=False):
            opening = genai.tool_call_opening(call, capture)
            span = self.run.start_span(opening, start_time=self.started)
            settled = genai.tool_settled(result, capture)
            span.set_attributes(settled.attributes)
            if settled.error_type is not None:
                span.set_attribute(names.ERROR_TYPE, settled.error_type)
                span.set_status(Status(StatusCode.ERROR, settled.description or settled.error_type))
            span.end()

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """A batch performer that raised: the run's failure says so."""
