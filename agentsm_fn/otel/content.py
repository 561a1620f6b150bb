"""Prompts, completions and tool arguments in the GenAI conventions' JSON shapes (content capture).

Only used when content capture is on: messages are private data. The shapes are the
conventions' (``gen_ai.input.messages``: a list of ``{role, parts}``; parts of type
``text``, ``tool_call`` and ``tool_call_response``; ``gen_ai.system_instructions``:
a list of text parts; ``gen_ai.output.messages``: the assistant's message with its
``finish_reason``).
"""

from __future__ import annotations

import json

from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentsm_fn.llm.replies import LlmReply

__all__ = ["input_messages", "output_messages", "system_instructions", "to_json", "tool_definitions"]

Part = dict[str, object]


def to_json(value: object) -> str:
    """Compact JSON (non-ASCII kept as it is), for an attribute value.

    Example:
        >>> to_json({"city": "Zürich"})
        '{"city":"Zürich"}'
    """
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _call_part(call: ToolCall) -> Part:
    return {"type": "tool_call", "id": call.id, "name": call.name, "arguments": thaw(call.arguments)}


def _parts(message: Message) -> tuple[str, list[Part]]:
    match message:
        case UserMessage(content=text):
            return "user", [{"type": "text", "content": text}]
        case AssistantMessage(content=text, tool_calls=calls):
            parts: list[Part] = [{"type": "text", "content": text}] if text else []
            return "assistant", parts + [_call_part(call) for call in calls]
        case ToolResultMessage(tool_call_id=call_id, content=text):
            return "tool", [{"type": "tool_call_response", "id": call_id, "response": text}]
        case SystemMessage(content=text):
            return "system", [{"type": "text", "content": text}]
    raise AssertionError(f"not a message: {type(message).__name__}")  # pragma: no cover


def input_messages(messages: tuple[Message, ...]) -> str:
    """The chat history sent (system messages excluded: see :func:`system_instructions`).

    Example:
        >>> input_messages((SystemMessage("be brief"), UserMessage("hi")))
        '[{"role":"user","parts":[{"type":"text","content":"hi"}]}]'
    """
    shaped = []
    for message in messages:
        if isinstance(message, SystemMessage):
            continue
        role, parts = _parts(message)
        shaped.append({"role": role, "parts": parts})
    return to_json(shaped)


def system_instructions(messages: tuple[Message, ...]) -> str | None:
    """The system messages as text parts, or None if there are none.

    Example:
        >>> system_instructions((SystemMessage("be brief"), UserMessage("hi")))
        '[{"type":"text","content":"be brief"}]'
    """
    parts = [{"type": "text", "content": m.content} for m in messages if isinstance(m, SystemMessage)]
    return to_json(parts) if parts else None


def output_messages(reply: LlmReply) -> str:
    """The model's reply as the conventions' output message.

    Example:
        >>> output_messages(LlmReply(content="Paris.", finish_reason="stop"))
        '[{"role":"assistant","parts":[{"type":"text","content":"Paris."}],"finish_reason":"stop"}]'
    """
    _, parts = _parts(AssistantMessage(content=reply.content, tool_calls=reply.tool_calls))
    return to_json([{"role": "assistant", "parts": parts, "finish_reason": reply.finish_reason or "stop"}])


def tool_definitions(tools: tuple[ToolSpec, ...]) -> str:
    """The tools offered to the model, as function definitions.

    Example:
        >>> tool_definitions((ToolSpec("search", "Search.", {"type": "object"}),))
        '[{"type":"function","name":"search","description":"Search.","parameters":{"type":"object"}}]'
    """
    return to_json(
        [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": thaw(t.parameters),
            }
            for t in tools
        ]
    )
