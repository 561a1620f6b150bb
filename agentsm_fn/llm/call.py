"""The LLM call as an effect: a request described as data, performed by the shell.

A handler returns ``perform(LlmCall(request), memory)``; the shell sends the
request through a provider and hands back an :data:`LlmOutcome`.
"""

from __future__ import annotations

from typing import ClassVar, Protocol, TypeAlias, runtime_checkable

import attrs
from pyrsistent import PMap

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect
from agentsm_fn.llm.json import JsonObject, freeze_object
from agentsm_fn.llm.messages import Message, ToolSpec
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply

__all__ = ["RESULT_TOOL", "AnyLlmProvider", "AsyncLlmProvider", "LlmCall", "LlmProvider", "LlmRequest"]

RESULT_TOOL = "final_result"
"""The final-result tool's name: a provider that asks for structured output through a tool offers it."""


def _optional_object(value: object) -> JsonObject | None:
    # A persistent map is taken as frozen (it is what freeze_object makes, e.g. a result type's
    # schema, sent with every planning request): freezing it again would copy the whole schema.
    if value is None or isinstance(value, PMap):
        return value
    return freeze_object(value)


@attrs.frozen(kw_only=True)
class LlmRequest:
    """Everything a provider needs for one call, independent of the wire format.

    ``model`` "" lets the provider use its own default. ``response_schema`` asks
    for structured output, the JSON Schema of an object (Ollama ``format``, OpenAI
    ``response_format``, or a final-result tool, as each provider's codec chooses);
    ``response_name`` and ``response_description`` name and describe it there.
    ``want_confidence`` asks for logprobs where the provider supports them.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> LlmRequest(model="", messages=(UserMessage("hi"),)).tools
        ()
    """

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int | None = None
    temperature: float | None = None
    response_schema: JsonObject | None = attrs.field(default=None, converter=_optional_object)
    want_confidence: bool = False
    response_name: str = ""
    response_description: str = ""


@attrs.frozen
class LlmCall(Effect[LlmOutcome]):
    """Effect: send ``request`` to the LLM. ``purpose`` labels it ("plan", "reflect", ...).

    Retry-safe (asking again after a crash costs tokens, changes nothing). When the
    call fails (its performer raised or timed out, or its outcome is unknown) the
    handler receives an ``LlmFailure`` of kind ``EFFECT_FAILED``.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> call = LlmCall(LlmRequest(model="m", messages=(UserMessage("hi"),)), purpose="plan")
        >>> call.summary(), call.accepts(LlmReply(content="hello"))
        ("LlmCall plan model='m' messages=1 tools=0", True)
    """

    outcome_types: ClassVar[tuple[type, ...]] = (LlmReply, LlmFailure)
    retry_safe = True

    request: LlmRequest
    purpose: str = ""

    def outcome_of_failure(self, failure: EffectFailure) -> LlmOutcome:
        """An ``LlmFailure`` (kind ``EFFECT_FAILED``) saying what went wrong.

        Example:
            >>> from agentsm_fn.core.effect_failures import EffectFailure
            >>> call = LlmCall(LlmRequest(model="m", messages=()))
            >>> call.outcome_of_failure(EffectFailure.raised("LlmCall", OSError("down"))).describe()
            'effect_failed: performer raised OSError: down'
        """
        return LlmFailure(kind=LlmFailureKind.EFFECT_FAILED, message=failure.problem())

    def summary(self) -> str:
        """Model, purpose and sizes; never message text or credentials."""
        r = self.request
        return f"LlmCall {self.purpose} model={r.model!r} messages={len(r.messages)} tools={len(r.tools)}"


@runtime_checkable
class LlmProvider(Protocol):
    """Performs LLM requests synchronously. Must not raise: failures are values."""

    def complete(self, request: LlmRequest) -> LlmOutcome:
        """Send ``request`` and return the reply or a typed failure."""
        ...


@runtime_checkable
class AsyncLlmProvider(Protocol):
    """Performs LLM requests asynchronously. Must not raise: failures are values."""

    async def acomplete(self, request: LlmRequest) -> LlmOutcome:
        """Send ``request`` and return the reply or a typed failure."""
        ...


AnyLlmProvider: TypeAlias = LlmProvider | AsyncLlmProvider
"""An LLM provider: sync, async, or both."""
