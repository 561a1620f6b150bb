"""Which span an effect gets, and what its outcome adds to it, per the GenAI conventions.

* an :class:`~agentsm_fn.llm.LlmCall` is a ``chat {model}`` span (kind CLIENT);
* one tool call (the ReAct agent's ``RunTool``; one call of plan-and-execute's
  ``RunTools``, reported as a part of its batch) is an ``execute_tool {tool}`` span;
* a batch of tool calls (``RunToolBatch``, ``RunTools``) has no span of its own: its
  calls' spans are the run's children (see :mod:`agentsm_fn.otel.observer`);
* any other effect is a span named after its class, with its ``summary()``.

Every function here is pure: it reads values and returns attribute maps.

One idea over 300 lines: the one mapping from effects and outcomes to GenAI span attributes;
split, the opening and the settling of the same span would live apart.
"""

from __future__ import annotations

import enum

import attrs
from opentelemetry.trace import SpanKind
from opentelemetry.util.types import AttributeValue

from agentsm_fn.agents.plan_execute.effects import PlanExecuteToolResult as PlanToolResult
from agentsm_fn.agents.plan_execute.effects import RunTools, ToolBatch
from agentsm_fn.agents.react.effects import RunTool, RunToolBatch
from agentsm_fn.agents.react.outcomes import ReactToolResult as ToolResult
from agentsm_fn.agents.react.outcomes import ToolBatchResult
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmReply
from agentsm_fn.otel import content, names

__all__ = [
    "Opening",
    "Settled",
    "batch_calls",
    "batch_outcomes",
    "batch_results",
    "failed",
    "is_batch",
    "opening",
    "settled",
    "tool_call_opening",
    "tool_settled",
]

Attributes = dict[str, AttributeValue]


class Kind(enum.Enum):
    """What an effect span is."""

    CHAT = "chat"
    TOOL = "tool"
    OTHER = "other"


@attrs.frozen(kw_only=True)
class Opening:
    """A span to start: its name, kind, attributes and GenAI operation."""

    name: str
    kind: SpanKind
    attributes: Attributes
    what: Kind


@attrs.frozen(kw_only=True)
class Settled:
    """What an outcome adds to its span: attributes, and an error (type and description) if it failed."""

    attributes: Attributes
    error_type: str | None = None
    description: str = ""


def is_batch(effect: Effect[object], part: bool) -> bool:
    """True for a batch of tool calls requested by the machine (its calls get the spans).

    Example:
        >>> is_batch(RunTools(()), part=False), is_batch(RunTools(()), part=True)
        (True, False)
    """
    return not part and isinstance(effect, RunToolBatch | RunTools)


def _call_of(effect: Effect[object]) -> ToolCall | None:
    if isinstance(effect, RunTool):
        return effect.call
    if isinstance(effect, RunTools) and len(effect.calls) == 1:
        return effect.calls[0]
    return None


def _tool_opening(call: ToolCall, capture: bool) -> Opening:
    attributes: Attributes = {
        names.OPERATION_NAME: names.EXECUTE_TOOL,
        names.TOOL_NAME: call.name,
        names.TOOL_TYPE: "function",
    }
    if call.id:
        attributes[names.TOOL_CALL_ID] = call.id
    if capture:
        attributes[names.TOOL_CALL_ARGUMENTS] = content.to_json(thaw(call.arguments))
    return Opening(
        name=f"{names.EXECUTE_TOOL} {call.name}",
        kind=SpanKind.INTERNAL,
        attributes=attributes,
        what=Kind.TOOL,
    )


def opening(effect: Effect[object], capture: bool) -> Opening:
    """The span for ``effect`` (``capture``: record prompts and tool arguments).

    Example:
        >>> from agentsm_fn.llm import LlmRequest, UserMessage
        >>> opening(LlmCall(LlmRequest(model="gpt-4o", messages=(UserMessage("hi"),))), False).name
        'chat gpt-4o'
    """
    summary = describe_effect(effect)
    if isinstance(effect, LlmCall):
        request = effect.request
        attributes: Attributes = {names.OPERATION_NAME: names.CHAT, names.EFFECT_SUMMARY: summary}
        if request.model:
            attributes[names.REQUEST_MODEL] = request.model
        if request.max_tokens is not None:
            attributes[names.REQUEST_MAX_TOKENS] = request.max_tokens
        if request.temperature is not None:
            attributes[names.REQUEST_TEMPERATURE] = request.temperature
        attributes[names.OUTPUT_TYPE] = "json" if request.response_schema is not None else "text"
        if effect.purpose:
            attributes[names.LLM_PURPOSE] = effect.purpose
        if capture:
            attributes[names.INPUT_MESSAGES] = content.input_messages(request.messages)
            system = content.system_instructions(request.messages)
            if system is not None:
                attributes[names.SYSTEM_INSTRUCTIONS] = system
            if request.tools:
                attributes[names.TOOL_DEFINITIONS] = content.tool_definitions(request.tools)
        name = f"{names.CHAT} {request.model}" if request.model else names.CHAT
        return Opening(name=name, kind=SpanKind.CLIENT, attributes=attributes, what=Kind.CHAT)
    call = _call_of(effect)
    if call is not None:
        found = _tool_opening(call, capture)
        found.attributes[names.EFFECT_SUMMARY] = summary
        return found
    attributes = {names.EFFECT_TYPE: type(effect).__name__, names.EFFECT_SUMMARY: summary}
    return Opening(name=type(effect).__name__, kind=SpanKind.INTERNAL, attributes=attributes, what=Kind.OTHER)


def tool_call_opening(call: ToolCall, capture: bool) -> Opening:
    """The span of one call of a batch whose calls were not reported one by one.

    Example:
        >>> tool_call_opening(ToolCall("c1", "search", {}), False).name
        'execute_tool search'
    """
    return _tool_opening(call, capture)


def _llm_error_type(failure: LlmFailure) -> str:
    if failure.kind is LlmFailureKind.HTTP_STATUS and failure.status is not None:
        return str(failure.status)
    return failure.kind.value


def _plan_error_type(result: PlanToolResult) -> str:
    text = result.content
    if " raised " in text:
        return text.split(" raised ", 1)[1].split(":", 1)[0].strip() or "_OTHER"
    if " timed out" in text:
        return "TimeoutError"
    if text.startswith("unknown tool"):
        return "ToolNotFound"
    if text.startswith("invalid arguments"):
        return "InvalidArguments"
    return "_OTHER"


def _llm_settled(outcome: object, provider: str | None, capture: bool) -> Settled:
    if isinstance(outcome, LlmReply):
        attributes: Attributes = {
            names.INPUT_TOKENS: outcome.usage.input_tokens,
            names.OUTPUT_TOKENS: outcome.usage.output_tokens,
        }
        if outcome.finish_reason:
            attributes[names.RESPONSE_FINISH_REASONS] = (outcome.finish_reason,)
        if outcome.model:
            attributes[names.RESPONSE_MODEL] = outcome.model
        if outcome.response_id:
            attributes[names.RESPONSE_ID] = outcome.response_id
        if outcome.provider or provider:
            attributes[names.PROVIDER_NAME] = outcome.provider or provider or ""
        if capture:
            attributes[names.OUTPUT_MESSAGES] = content.output_messages(outcome)
        return Settled(attributes=attributes)
    if isinstance(outcome, LlmFailure):
        attributes = {names.LLM_ATTEMPTS: outcome.attempts}
        if outcome.provider or provider:
            attributes[names.PROVIDER_NAME] = outcome.provider or provider or ""
        return Settled(
            attributes=attributes, error_type=_llm_error_type(outcome), description=outcome.describe()
        )
    return _unexpected(outcome)


def failed(failure: EffectFailure) -> Settled:
    """An effect's failure: ``error.type`` is its kind (``raised``, ``timed_out``, ...).

    Example:
        >>> failed(EffectFailure.timed_out("Ask", 2.0)).error_type
        'timed_out'
    """
    kind = failure.kind.value
    return Settled(attributes={names.EFFECT_FAILURE: kind}, error_type=kind, description=failure.describe())


def _unexpected(outcome: object) -> Settled:
    kind = type(outcome).__name__
    return Settled(attributes={}, error_type=kind, description=f"unexpected outcome {kind}")


def tool_settled(outcome: object, capture: bool) -> Settled:
    """What one tool call's result adds to its span.

    Example:
        >>> tool_settled(ToolResult.failure("c1", "t", "ValueError", "bad"), False).error_type
        'ValueError'
    """
    if isinstance(outcome, ToolBatch) and len(outcome.results) == 1:
        outcome = outcome.results[0]
    if isinstance(outcome, EffectFailure):
        return failed(outcome)
    if isinstance(outcome, ToolResult):
        attributes: Attributes = {names.TOOL_CALL_RESULT: outcome.output} if capture else {}
        if outcome.ok:
            return Settled(attributes=attributes)
        message = f"{outcome.error_type}: {outcome.output}" if capture else outcome.error_type
        return Settled(attributes=attributes, error_type=outcome.error_type or "_OTHER", description=message)
    if isinstance(outcome, PlanToolResult):
        attributes = {names.TOOL_CALL_RESULT: outcome.content} if capture else {}
        if not outcome.is_error:
            return Settled(attributes=attributes)
        error = _plan_error_type(outcome)
        return Settled(
            attributes=attributes, error_type=error, description=outcome.content if capture else error
        )
    return _unexpected(outcome)


def settled(effect: Effect[object], outcome: object, provider: str | None, capture: bool) -> Settled:
    """What ``outcome`` adds to the span of ``effect`` (``provider``: the name to use if the reply has none).

    Example:
        >>> from agentsm_fn.llm import LlmRequest
        >>> call = LlmCall(LlmRequest(model="m", messages=()))
        >>> busy = LlmFailure(kind=LlmFailureKind.HTTP_STATUS, status=503, message="busy")
        >>> settled(call, busy, None, False).error_type
        '503'
    """
    if isinstance(outcome, EffectFailure):
        return failed(outcome)
    if isinstance(effect, LlmCall):
        return _llm_settled(outcome, provider, capture)
    if _call_of(effect) is not None:
        return tool_settled(outcome, capture)
    return Settled(attributes={})


def batch_results(outcome: object) -> tuple[object, ...]:
    """The per-call results of a batch's outcome, in call order.

    Example:
        >>> batch_results(ToolBatch(()))
        ()
    """
    if isinstance(outcome, ToolBatchResult | ToolBatch):
        return tuple(outcome.results)
    return ()


def batch_outcomes(effect: Effect[object], outcome: object) -> tuple[object, ...]:
    """Each call's outcome: its result, or the batch's ``EffectFailure`` for every call.

    Example:
        >>> failure = EffectFailure.timed_out("RunTools", 1.0)
        >>> batch_outcomes(RunTools((ToolCall("c1", "t", {}),)), failure) == (failure,)
        True
    """
    if isinstance(outcome, EffectFailure):
        return tuple(outcome for _ in batch_calls(effect))
    return batch_results(outcome)


def batch_calls(effect: Effect[object]) -> tuple[ToolCall, ...]:
    """The tool calls of a batch effect.

    Example:
        >>> batch_calls(RunTools((ToolCall("c1", "t", {}),)))[0].name
        't'
    """
    if isinstance(effect, RunToolBatch):
        return tuple(run.call for run in effect.runs)
    if isinstance(effect, RunTools):
        return effect.calls
    return ()
