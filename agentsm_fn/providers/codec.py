"""The pure wire layer: what a provider codec and a stream decoder promise.

A :class:`Codec` turns an :class:`~agentsm_fn.llm.LlmRequest` into a
:class:`WireRequest` (path, headers, JSON body) and turns response bytes back into
an :data:`~agentsm_fn.llm.LlmOutcome`. It never does IO and never raises on
server data: bad shapes, refusals, truncation and bad tool arguments all become
:class:`~agentsm_fn.llm.LlmFailure` values. A :class:`StreamDecoder` is the same
for streams: a deterministic fold fed one SSE event or NDJSON line at a time.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal, Protocol

import attrs

from agentsm_fn.llm.call import RESULT_TOOL, LlmRequest
from agentsm_fn.llm.json import JsonObject, dumps, freeze, freeze_object
from agentsm_fn.llm.messages import ToolCall
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply, Usage
from agentsm_fn.providers._wire import as_object, parse_json
from agentsm_fn.providers.events import StreamEvent

__all__ = [
    "Codec",
    "Draft",
    "StreamDecoder",
    "WireRequest",
    "assemble",
    "confidence_from_logprobs",
    "header_pairs",
    "malformed",
    "number_list",
    "parse_tool_arguments",
    "tool_call_or_failure",
]


@attrs.frozen(kw_only=True)
class WireRequest:
    """One HTTP request as data: path under the base URL, non-secret headers, JSON body.

    Example:
        >>> WireRequest(path="/chat/completions", body=b"{}").headers
        ()
    """

    path: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()
    stream: bool = False


class StreamDecoder(Protocol):
    """A fold over one streamed reply: feed events, read ``done``, then ``finish``."""

    @property
    def done(self) -> bool:
        """True once the terminal event (or an error event) was seen."""
        ...

    def feed(self, event: str, data: str) -> tuple[StreamEvent, ...]:
        """Take one SSE event (name, data) or one NDJSON line (``""``, line)."""
        ...

    def finish(self) -> LlmOutcome:
        """The final outcome; a failure if the stream ended early or carried an error."""
        ...


class Codec(Protocol):
    """Pure encoding and decoding for one wire protocol."""

    @property
    def name(self) -> str:
        """Provider name for failures and logs ("openai", "anthropic", "ollama")."""
        ...

    @property
    def stream_format(self) -> Literal["sse", "ndjson"]:
        """How streamed bodies are framed."""
        ...

    def encode(self, request: LlmRequest, *, stream: bool) -> WireRequest:
        """The HTTP request for ``request``."""
        ...

    def auth_headers(self, secret: str) -> tuple[tuple[str, str], ...]:
        """The headers that carry the credential (never logged)."""
        ...

    def decode(self, request: LlmRequest, body: bytes) -> LlmOutcome:
        """The outcome of a 2xx body."""
        ...

    def error_message(self, body: bytes) -> str:
        """A short message from an error body (any shape; never raises)."""
        ...

    def stream_decoder(self, request: LlmRequest) -> StreamDecoder:
        """A fresh decoder for one streamed reply to ``request``."""
        ...


def malformed(provider: str, message: str) -> LlmFailure:
    """A MALFORMED_REPLY failure.

    Example:
        >>> malformed("openai", "no choices").describe()
        'malformed_reply: no choices'
    """
    return LlmFailure(kind=LlmFailureKind.MALFORMED_REPLY, message=message, provider=provider)


def _arguments_object(provider: str, name: str, raw: object) -> dict[str, object] | LlmFailure:
    value: object = raw
    if isinstance(raw, str):
        value = {} if raw.strip() == "" else parse_json(raw)
    obj = as_object(value)
    if obj is None:
        return LlmFailure(
            kind=LlmFailureKind.INVALID_TOOL_ARGUMENTS,
            message=f"arguments of tool {name!r} are not a JSON object",
            provider=provider,
        )
    return obj


def _not_json(provider: str, name: str) -> LlmFailure:
    return LlmFailure(
        kind=LlmFailureKind.INVALID_TOOL_ARGUMENTS,
        message=f"arguments of tool {name!r} are not JSON",
        provider=provider,
    )


def parse_tool_arguments(provider: str, name: str, raw: object) -> JsonObject | LlmFailure:
    """Tool arguments from a JSON string or object; a typed failure otherwise.

    An empty string means no arguments (some servers send ``""`` for ``{}``).

    Example:
        >>> dict(parse_tool_arguments("openai", "f", '{"a": 1}'))
        {'a': 1}
        >>> parse_tool_arguments("openai", "f", "{oops").kind.value
        'invalid_tool_arguments'
    """
    obj = _arguments_object(provider, name, raw)
    if isinstance(obj, LlmFailure):
        return obj
    try:
        return freeze_object(obj)
    except (TypeError, RecursionError):
        return _not_json(provider, name)


def tool_call_or_failure(provider: str, call_id: str, name: str, raw: object) -> ToolCall | LlmFailure:
    """A :class:`ToolCall`, or the failure explaining why the arguments are unusable.

    Example:
        >>> tool_call_or_failure("ollama", "c1", "f", {"x": 1}).arguments_json
        '{"x":1}'
    """
    if not name:
        return malformed(provider, "tool call without a name")
    obj = _arguments_object(provider, name, raw)
    if isinstance(obj, LlmFailure):
        return obj
    try:  # ToolCall freezes the arguments (once: parse_tool_arguments would freeze them twice)
        return ToolCall(id=call_id, name=name, arguments=obj)
    except (TypeError, RecursionError):
        return _not_json(provider, name)


def confidence_from_logprobs(logprobs: list[float]) -> float:
    """Geometric-mean token probability in [0, 1]; 1.0 when there are none.

    Example:
        >>> round(confidence_from_logprobs([math.log(0.5), math.log(0.5)]), 3)
        0.5
        >>> confidence_from_logprobs([])
        1.0
    """
    finite = [lp for lp in logprobs if math.isfinite(lp)]
    if not finite:
        return 1.0
    return min(1.0, max(0.0, math.exp(sum(finite) / len(finite))))


def header_pairs(headers: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """Headers as sorted pairs (for :class:`WireRequest`).

    Example:
        >>> header_pairs({"b": "2", "a": "1"})
        (('a', '1'), ('b', '2'))
    """
    return tuple(sorted(headers.items()))


@attrs.frozen(kw_only=True)
class Draft:
    """A decoded reply before judgement: what every protocol boils down to.

    Example:
        >>> assemble("openai", LlmRequest(model="m", messages=()), Draft(content="hi")).content
        'hi'
    """

    content: str = ""
    calls: tuple[tuple[str, str, object], ...] = ()
    finish_reason: str = ""
    truncated: bool = False
    refusal: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    logprobs: tuple[float, ...] = ()
    model: str = ""
    response_id: str = ""


def _result_text(raw: object) -> str:
    if isinstance(raw, str):
        return raw
    try:
        return dumps(freeze(raw))
    except (TypeError, RecursionError):
        return ""


def assemble(provider: str, request: LlmRequest, draft: Draft) -> LlmOutcome:
    """Judge a draft: refusal, truncation and bad tool arguments become failures.

    Tool calls make it a tool-call reply whatever the finish reason says, except a call of
    the final-result tool (:data:`~agentsm_fn.llm.RESULT_TOOL`) when the request asked for
    structured output: its arguments are the reply's text (other calls of that reply are
    dropped). Whether structured output is valid is for whoever asked for it to judge (an
    agent sends the problems back), so text that is not JSON is still a reply.

    Example:
        >>> req = LlmRequest(model="m", messages=())
        >>> assemble("x", req, Draft(calls=(("c1", "f", '{"a":1}'),))).tool_calls[0].name
        'f'
        >>> assemble("x", req, Draft(truncated=True, finish_reason="length")).kind.value
        'truncated'
    """
    if draft.refusal is not None:
        text = draft.refusal[:200] or f"finish reason {draft.finish_reason!r}"
        return LlmFailure(kind=LlmFailureKind.REFUSAL, message=f"model refused: {text}", provider=provider)
    if draft.truncated:
        return LlmFailure(
            kind=LlmFailureKind.TRUNCATED,
            message=f"output cut at the token limit ({draft.finish_reason})",
            provider=provider,
        )
    if request.response_schema is not None:
        for _, name, raw in draft.calls:
            if name == RESULT_TOOL:
                return _reply(provider, request, attrs.evolve(draft, content=_result_text(raw)), ())
    calls: list[ToolCall] = []
    for call_id, name, raw in draft.calls:
        call = tool_call_or_failure(provider, call_id, name, raw)
        if isinstance(call, LlmFailure):
            return call
        calls.append(call)
    return _reply(provider, request, draft, tuple(calls))


def _reply(provider: str, request: LlmRequest, draft: Draft, calls: tuple[ToolCall, ...]) -> LlmReply:
    return LlmReply(
        content=draft.content,
        tool_calls=calls,
        usage=Usage(input_tokens=draft.input_tokens, output_tokens=draft.output_tokens),
        confidence=confidence_from_logprobs(list(draft.logprobs)) if request.want_confidence else 1.0,
        finish_reason=draft.finish_reason,
        model=draft.model,
        response_id=draft.response_id,
        provider=provider,
    )


def number_list(values: object, key: str = "logprob") -> tuple[float, ...]:
    """The finite numbers under ``key`` in a list of objects (token logprobs).

    Example:
        >>> number_list([{"logprob": -0.5}, {"logprob": "x"}, 3])
        (-0.5,)
    """
    found: list[float] = []
    for item in values if isinstance(values, list) else []:
        value = item.get(key) if isinstance(item, dict) else None
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
            found.append(float(value))
    return tuple(found)
