"""Anthropic Messages: ``POST {base}/v1/messages`` with ``x-api-key`` and ``anthropic-version``.

``max_tokens`` is always sent (the request's, else ``default_max_tokens``); the
system prompt is top-level; turns are built by :func:`build_turns`. Replies:
``tool_use`` blocks make a tool-call turn; ``stop_reason`` ``refusal`` is REFUSAL,
``max_tokens`` and ``model_context_window_exceeded`` are TRUNCATED.
"""

from __future__ import annotations

from typing import Literal

import attrs

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers._wire import as_int, as_list, as_object, as_str, json_text, parse_object
from agentsm_fn.providers.anthropic_stream import TRUNCATING_STOPS, AnthropicStreamDecoder, input_tokens
from agentsm_fn.providers.anthropic_turns import build_turns
from agentsm_fn.providers.codec import Draft, StreamDecoder, WireRequest, assemble, malformed
from agentsm_fn.providers.structured import Structured, result_stream, result_tool, wants_tool

__all__ = ["AnthropicCodec", "anthropic_error_text"]


def anthropic_error_text(body: bytes | dict[str, object] | None) -> str:
    """The message of ``{"type": "error", "error": {"type", "message"}}`` (any shape; never raises).

    Example:
        >>> anthropic_error_text(b'{"error":{"type":"overloaded_error","message":"Overloaded"}}')
        'overloaded_error: Overloaded'
    """
    obj = parse_object(body) if isinstance(body, bytes) else body
    if obj is None:
        return "unreadable error body"
    err = as_object(obj.get("error")) or obj
    kind, message = as_str(err.get("type")), as_str(err.get("message"))
    text = f"{kind}: {message}" if kind and message else (message or kind or "error without a message")
    return text[:500]


@attrs.frozen(kw_only=True)
class AnthropicCodec:
    """Encoding and decoding for the Messages API.

    ``structured`` says how a request's ``response_schema`` is asked for: ``"tool"`` (the
    default), a final-result tool the model is made to call (``tool_choice`` that tool when it
    is the only one, else ``any``), which every Claude model supports; ``"native"``, the
    ``output_config`` JSON Schema format of the models that have structured outputs.

    Example:
        >>> from agentsm_fn.llm import SystemMessage, UserMessage
        >>> codec = AnthropicCodec(model="claude-sonnet-4-5", default_max_tokens=256)
        >>> wire = codec.encode(
        ...     LlmRequest(model="", messages=(SystemMessage("Be brief."), UserMessage("hi"))), stream=False
        ... )
        >>> wire.body[:60], dict(wire.headers)["anthropic-version"]
        (b'{"model":"claude-sonnet-4-5","max_tokens":256,"messages":[{"', '2023-06-01')
    """

    model: str = ""
    version: str = "2023-06-01"
    default_max_tokens: int = 4096
    path: str = "/v1/messages"
    structured: Structured = "tool"

    @property
    def name(self) -> str:
        return "anthropic"

    @property
    def stream_format(self) -> Literal["sse", "ndjson"]:
        return "sse"

    def auth_headers(self, secret: str) -> tuple[tuple[str, str], ...]:
        return (("x-api-key", secret),) if secret else ()

    def encode(self, request: LlmRequest, *, stream: bool) -> WireRequest:
        system, turns = build_turns(request.messages)
        body: dict[str, object] = {
            "model": request.model or self.model,
            "max_tokens": request.max_tokens if request.max_tokens is not None else self.default_max_tokens,
            "messages": turns,
        }
        if system:
            body["system"] = system
        tools = request.tools
        if wants_tool(request, self.structured):
            tools = (*tools, result_tool(request))
            body["tool_choice"] = (
                {"type": "any"} if request.tools else {"type": "tool", "name": tools[-1].name}
            )
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": thaw(t.parameters)}
                for t in tools
            ]
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if request.response_schema is not None and not wants_tool(request, self.structured):
            body["output_config"] = {
                "format": {"type": "json_schema", "schema": thaw(request.response_schema)}
            }
        if stream:
            body["stream"] = True
        return WireRequest(
            path=self.path,
            body=json_text(body),
            headers=(("anthropic-version", self.version),),
            stream=stream,
        )

    def decode(self, request: LlmRequest, body: bytes) -> LlmOutcome:
        obj = parse_object(body)
        if obj is None:
            return malformed("anthropic", "body is not a JSON object")
        if obj.get("type") == "error":
            return LlmFailure(
                kind=LlmFailureKind.STREAM_ERROR, message=anthropic_error_text(obj), provider="anthropic"
            )
        if not isinstance(obj.get("content"), list):
            return malformed("anthropic", "reply has no content list")
        text: list[str] = []
        calls: list[tuple[str, str, object]] = []
        for raw in as_list(obj.get("content")):
            block = as_object(raw) or {}
            if block.get("type") == "text":
                text.append(as_str(block.get("text")))
            elif block.get("type") == "tool_use":
                calls.append((as_str(block.get("id")), as_str(block.get("name")), block.get("input")))
        stop = as_str(obj.get("stop_reason"))
        usage = as_object(obj.get("usage")) or {}
        draft = Draft(
            content="".join(text),
            calls=tuple(calls),
            finish_reason=stop,
            truncated=stop in TRUNCATING_STOPS,
            refusal=("".join(text) or "refusal") if stop == "refusal" else None,
            input_tokens=input_tokens(usage),
            output_tokens=as_int(usage.get("output_tokens")),
            model=as_str(obj.get("model")),
            response_id=as_str(obj.get("id")),
        )
        return assemble("anthropic", request, draft)

    def error_message(self, body: bytes) -> str:
        return anthropic_error_text(body)

    def stream_decoder(self, request: LlmRequest) -> StreamDecoder:
        return result_stream(AnthropicStreamDecoder(request), request, self.structured)
