"""OpenAI Chat Completions, and every server that speaks it (Groq, Together, vLLM, Ollama /v1).

Requests: system/user/assistant/tool messages; assistant turns echo their
``tool_calls`` (arguments as JSON text) and each result is one ``tool`` message
with its ``tool_call_id``. Replies: a tool-call turn whenever ``tool_calls`` is
present (whatever ``finish_reason`` says), ``refusal`` and ``content_filter`` become
REFUSAL, ``length`` becomes TRUNCATED, logprobs give the confidence when asked.
"""

from __future__ import annotations

from typing import Literal

import attrs

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import Message, SystemMessage, ToolResultMessage, ToolSpec, UserMessage
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome
from agentsm_fn.providers._memo import by_identity
from agentsm_fn.providers._wire import as_int, as_list, as_object, as_str, json_text, parse_object
from agentsm_fn.providers.codec import Draft, StreamDecoder, WireRequest, assemble, malformed, number_list
from agentsm_fn.providers.openai_stream import OpenAiStreamDecoder
from agentsm_fn.providers.structured import Structured, result_stream, result_tool, wants_tool

__all__ = [
    "OpenAiCodec",
    "cached_function_tools",
    "encode_openai_message",
    "error_text",
    "function_tools",
    "refusal_of",
    "text_of",
]


def function_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, object]]:
    """Tool specs as ``{"type": "function", "function": {...}}`` (OpenAI and Ollama).

    Example:
        >>> function_tools((ToolSpec("f", "Does f", {"type": "object"}),))[0]["function"]["name"]
        'f'
    """
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": thaw(t.parameters)},
        }
        for t in tools
    ]


def encode_openai_message(message: Message) -> dict[str, object]:
    """One neutral message as a Chat Completions message.

    Example:
        >>> from agentsm_fn.llm import AssistantMessage, ToolCall
        >>> encode_openai_message(AssistantMessage(tool_calls=(ToolCall("c1", "f", {"a": 1}),)))["tool_calls"]
        [{'id': 'c1', 'type': 'function', 'function': {'name': 'f', 'arguments': '{"a":1}'}}]
    """
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": message.content}
    if isinstance(message, UserMessage):
        return {"role": "user", "content": message.content}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    out: dict[str, object] = {"role": "assistant", "content": message.content or None}
    if message.tool_calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
            for c in message.tool_calls
        ]
    elif not message.content:
        out["content"] = ""
    return out


# Messages and tool specs are frozen values, re-sent on every turn of a conversation: their wire
# form is computed once per object, found again by identity. Never by equality: frozen JSON
# compares with ``==``, and 1 == 1.0 == True, so {"flag": 1} would be sent as {"flag": true}.
# The cached dicts are only ever serialised, never mutated.
_encoded = by_identity(encode_openai_message)


def _one_tool(spec: ToolSpec) -> dict[str, object]:
    return function_tools((spec,))[0]


_function_tool = by_identity(_one_tool, limit=1024)  # a ToolDef keeps its ToolSpec: one per tool


def _all_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, object]]:
    return [_function_tool(t) for t in tools]


_function_tools = by_identity(_all_tools, limit=256)
_plain_schema = by_identity(thaw, limit=256)  # a result type's schema, re-sent with every planning call


def cached_function_tools(tools: tuple[ToolSpec, ...]) -> list[dict[str, object]]:
    """:func:`function_tools`, memoised by identity (the result is shared: serialise it, never mutate it).

    Example:
        >>> tools = (ToolSpec("f", "Does f", {"type": "object", "properties": {"x": {"enum": [1]}}}),)
        >>> cached_function_tools(tools) is cached_function_tools(tools)
        True
        >>> flag = (ToolSpec("f", "Does f", {"type": "object", "properties": {"x": {"enum": [True]}}}),)
        >>> cached_function_tools(flag)[0]["function"]["parameters"]["properties"]["x"]
        {'enum': [True]}
    """
    return _function_tools(tools)


def error_text(body: bytes | dict[str, object] | None) -> str:
    """The message of an OpenAI-shaped (or Ollama-shaped) error body, never raising.

    Example:
        >>> error_text(b'{"error": {"message": "bad key", "type": "invalid_request_error"}}')
        'bad key'
        >>> error_text(b'{"error": "model not found"}'), error_text(b"<html>")
        ('model not found', 'unreadable error body')
    """
    obj = parse_object(body) if isinstance(body, bytes) else body
    if obj is None:
        return "unreadable error body"
    err = obj.get("error")
    if isinstance(err, str):
        return err[:500]
    inner = as_object(err) or obj
    message = as_str(inner.get("message")) or as_str(inner.get("type")) or "error without a message"
    return message[:500]


@attrs.frozen(kw_only=True)
class OpenAiCodec:
    """Encoding and decoding for ``POST {base}/chat/completions``.

    ``max_tokens_field`` is ``"max_tokens"`` (what compatible servers accept) or
    ``"max_completion_tokens"`` (what OpenAI's newest models require). ``structured``
    says how a request's ``response_schema`` is asked for: ``"native"`` (the default),
    ``response_format`` with the JSON Schema, which OpenAI's models accept alongside tools;
    ``"tool"``, a final-result tool the model must call (``tool_choice`` ``required``), for
    compatible servers whose models ignore ``response_format`` when tools are given.

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> wire = OpenAiCodec(model="gpt-4o").encode(
        ...     LlmRequest(model="", messages=(UserMessage("hi"),)), stream=False
        ... )
        >>> wire.path, wire.body
        ('/chat/completions', b'{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}')
    """

    model: str = ""
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    path: str = "/chat/completions"
    structured: Structured = "native"

    @property
    def name(self) -> str:
        return "openai"

    @property
    def stream_format(self) -> Literal["sse", "ndjson"]:
        return "sse"

    def auth_headers(self, secret: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {secret}"),) if secret else ()

    def encode(self, request: LlmRequest, *, stream: bool) -> WireRequest:
        body: dict[str, object] = {
            "model": request.model or self.model,
            "messages": [_encoded(m) for m in request.messages],
        }
        if request.tools:
            body["tools"] = cached_function_tools(request.tools)
        if request.max_tokens is not None:
            body[self.max_tokens_field] = request.max_tokens
        if request.temperature is not None:
            body["temperature"] = request.temperature
        if wants_tool(request, self.structured):
            body["tools"] = [*cached_function_tools(request.tools), *function_tools((result_tool(request),))]
            body["tool_choice"] = "required"
        elif request.response_schema is not None:
            schema: dict[str, object] = {"name": request.response_name or "response"}
            if request.response_description:
                schema["description"] = request.response_description
            schema["schema"] = _plain_schema(request.response_schema)
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        if request.want_confidence:
            body["logprobs"] = True
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return WireRequest(path=self.path, body=json_text(body), stream=stream)

    def decode(self, request: LlmRequest, body: bytes) -> LlmOutcome:
        obj = parse_object(body)
        if obj is None:
            return malformed("openai", "body is not a JSON object")
        if obj.get("error") is not None:
            return LlmFailure(kind=LlmFailureKind.STREAM_ERROR, message=error_text(obj), provider="openai")
        choices = as_list(obj.get("choices"))
        choice = as_object(choices[0]) if choices else None
        message = as_object(choice.get("message")) if choice else None
        if choice is None or message is None:
            return malformed("openai", "reply has no choices[0].message")
        calls: list[tuple[str, str, object]] = []
        for raw in as_list(message.get("tool_calls")):
            call = as_object(raw)
            function = as_object(call.get("function")) if call else None
            if call is None or function is None:
                return malformed("openai", "tool call without a function")
            calls.append((as_str(call.get("id")), as_str(function.get("name")), function.get("arguments")))
        finish = as_str(choice.get("finish_reason"))
        refusal = message.get("refusal")
        usage = as_object(obj.get("usage")) or {}
        logprobs = as_object(choice.get("logprobs")) or {}
        draft = Draft(
            content=text_of(message.get("content")),
            calls=tuple(calls),
            finish_reason=finish,
            truncated=finish == "length",
            refusal=refusal if isinstance(refusal, str) and refusal else refusal_of(finish),
            input_tokens=as_int(usage.get("prompt_tokens")),
            output_tokens=as_int(usage.get("completion_tokens")),
            logprobs=number_list(logprobs.get("content")),
            response_id=as_str(obj.get("id")),
            model=as_str(obj.get("model")),
        )
        return assemble("openai", request, draft)

    def error_message(self, body: bytes) -> str:
        return error_text(body)

    def stream_decoder(self, request: LlmRequest) -> StreamDecoder:
        return result_stream(OpenAiStreamDecoder(request), request, self.structured)


def text_of(content: object) -> str:
    """Message content as text: a string, or the text parts of a content-part list.

    Example:
        >>> text_of("hi"), text_of([{"type": "text", "text": "a"}, {"type": "image_url"}, {"text": "b"}])
        ('hi', 'ab')
    """
    if isinstance(content, str):
        return content
    return "".join(as_str((as_object(part) or {}).get("text")) for part in as_list(content))


def refusal_of(finish_reason: str) -> str | None:
    """A refusal text for finish reasons that mean one (``content_filter``), else None.

    Example:
        >>> refusal_of("content_filter"), refusal_of("stop")
        ('content filtered', None)
    """
    return "content filtered" if finish_reason == "content_filter" else None
