"""Ollama native API: ``POST /api/chat`` (tools with object arguments) and ``/api/generate``.

Requests always say ``stream`` explicitly (Ollama defaults to streaming).
A request with a ``response_schema`` and no tools goes to ``/api/generate`` with
``format`` set to the schema (``generate_for_schema``; the planner of the
plan-and-execute agent uses this), its history rendered into ``system`` and
``prompt``. Replies: tool calls are detected by presence (Ollama has no tool-call
finish reason); ``id`` is optional (generated as ``ollama_call_<n>`` when missing);
``done_reason`` ``length`` is TRUNCATED. Errors may be ``{"error": "<string>"}`` or
OpenAI-shaped; both are read.
"""

from __future__ import annotations

from typing import Literal

import attrs

from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import AssistantMessage, Message, SystemMessage, ToolResultMessage, UserMessage
from agentsm_fn.llm.replies import LlmOutcome
from agentsm_fn.providers._memo import by_identity
from agentsm_fn.providers._wire import json_text, parse_object
from agentsm_fn.providers.codec import StreamDecoder, WireRequest, malformed
from agentsm_fn.providers.ollama_stream import OllamaStreamDecoder, chunk_failure, decode_final
from agentsm_fn.providers.openai_codec import cached_function_tools, error_text, function_tools
from agentsm_fn.providers.structured import Structured, result_stream, result_tool, wants_tool

__all__ = ["OllamaCodec", "encode_ollama_message", "render_prompt"]


def encode_ollama_message(message: Message) -> dict[str, object]:
    """One neutral message as an Ollama chat message (tool arguments as objects).

    Example:
        >>> encode_ollama_message(ToolResultMessage("c1", "clock", "12:00"))
        {'role': 'tool', 'content': '12:00', 'tool_name': 'clock'}
    """
    if isinstance(message, SystemMessage):
        return {"role": "system", "content": message.content}
    if isinstance(message, UserMessage):
        return {"role": "user", "content": message.content}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "content": message.content, "tool_name": message.name}
    out: dict[str, object] = {"role": "assistant", "content": message.content}
    if message.tool_calls:
        out["tool_calls"] = [
            {"function": {"name": c.name, "arguments": thaw(c.arguments)}} for c in message.tool_calls
        ]
    return out


# Frozen messages, serialised only: memoized by identity, never by equality (1 == 1.0 == True).
_encoded = by_identity(encode_ollama_message)


def render_prompt(messages: tuple[Message, ...]) -> tuple[str, str]:
    """``(system, prompt)`` for ``/api/generate``: a lone user message is the prompt itself.

    Example:
        >>> render_prompt((SystemMessage("Plan."), UserMessage("Trip to Mars")))
        ('Plan.', 'Trip to Mars')
    """
    system = "\n\n".join(m.content for m in messages if isinstance(m, SystemMessage))
    rest = [m for m in messages if not isinstance(m, SystemMessage)]
    if len(rest) == 1 and isinstance(rest[0], UserMessage):
        return system, rest[0].content
    lines: list[str] = []
    for m in rest:
        if isinstance(m, UserMessage):
            lines.append(f"User: {m.content}")
        elif isinstance(m, AssistantMessage):
            calls = "".join(f"\n[called {c.name} {c.arguments_json}]" for c in m.tool_calls)
            lines.append(f"Assistant: {m.content}{calls}")
        elif isinstance(m, ToolResultMessage):
            lines.append(f"Tool {m.name} returned: {m.content}")
    return system, "\n\n".join(lines)


@attrs.frozen(kw_only=True)
class OllamaCodec:
    """Encoding and decoding for Ollama's native chat and generate endpoints.

    ``structured`` says how a request's ``response_schema`` is asked for: ``"native"`` (the
    default), ``format`` with the JSON Schema (grammar-constrained decoding); ``"tool"``, a
    final-result tool on ``/api/chat`` (Ollama has no ``tool_choice``: the model is only offered it).

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> wire = OllamaCodec(model="llama3.2").encode(
        ...     LlmRequest(model="", messages=(UserMessage("hi"),), response_schema={"type": "object"}),
        ...     stream=False,
        ... )
        >>> wire.path, wire.body
        ('/api/generate', b'{"model":"llama3.2","prompt":"hi","stream":false,"format":{"type":"object"}}')
    """

    model: str = ""
    generate_for_schema: bool = True
    chat_path: str = "/api/chat"
    generate_path: str = "/api/generate"
    structured: Structured = "native"

    @property
    def name(self) -> str:
        return "ollama"

    @property
    def stream_format(self) -> Literal["sse", "ndjson"]:
        return "ndjson"

    def auth_headers(self, secret: str) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {secret}"),) if secret else ()

    def uses_generate(self, request: LlmRequest) -> bool:
        """True when ``request`` goes to ``/api/generate`` (structured output, no tools)."""
        return (
            self.generate_for_schema
            and request.response_schema is not None
            and not request.tools
            and not wants_tool(request, self.structured)
        )

    def encode(self, request: LlmRequest, *, stream: bool) -> WireRequest:
        body: dict[str, object] = {"model": request.model or self.model}
        if self.uses_generate(request):
            system, prompt = render_prompt(request.messages)
            body["prompt"] = prompt
            if system:
                body["system"] = system
            path = self.generate_path
        else:
            body["messages"] = [_encoded(m) for m in request.messages]
            if request.tools:
                body["tools"] = cached_function_tools(request.tools)
            if wants_tool(request, self.structured):
                body["tools"] = [
                    *cached_function_tools(request.tools),
                    *function_tools((result_tool(request),)),
                ]
            path = self.chat_path
        body["stream"] = stream
        if request.response_schema is not None and not wants_tool(request, self.structured):
            body["format"] = thaw(request.response_schema)
        options: dict[str, object] = {}
        if request.temperature is not None:
            options["temperature"] = request.temperature
        if request.max_tokens is not None:
            options["num_predict"] = request.max_tokens
        if options:
            body["options"] = options
        if request.want_confidence:
            body["logprobs"] = True
        return WireRequest(path=path, body=json_text(body), stream=stream)

    def decode(self, request: LlmRequest, body: bytes) -> LlmOutcome:
        obj = parse_object(body)
        if obj is None:
            return malformed("ollama", "body is not a JSON object")
        failure = chunk_failure(obj)
        if failure is not None:
            return failure
        return decode_final(request, [obj], generate=self.uses_generate(request))

    def error_message(self, body: bytes) -> str:
        return error_text(body)

    def stream_decoder(self, request: LlmRequest) -> StreamDecoder:
        decoder = OllamaStreamDecoder(request, generate=self.uses_generate(request))
        return result_stream(decoder, request, self.structured)
