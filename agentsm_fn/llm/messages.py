"""The provider-neutral conversation: messages, tool calls, tool specs.

Providers map these to their wire formats (OpenAI chat messages, Anthropic
content blocks, Ollama chat messages). History is sent as real tool-call turns:
an :class:`AssistantMessage` carrying ``tool_calls``, then one
:class:`ToolResultMessage` per call, matched by ``tool_call_id``.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs
from pyrsistent import pmap

from agentsm_fn.llm.json import JsonObject, dumps, freeze_object

__all__ = [
    "AssistantMessage",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolResultMessage",
    "ToolSpec",
    "UserMessage",
]


def _frozen_object(value: object) -> JsonObject:
    return freeze_object(value)


@attrs.frozen
class ToolCall:
    """A tool invocation requested by the model: call id, tool name, JSON arguments.

    Example:
        >>> call = ToolCall(id="call_1", name="search", arguments={"query": "Paris"})
        >>> call.arguments["query"], call.arguments_json
        ('Paris', '{"query":"Paris"}')
    """

    id: str
    name: str
    arguments: JsonObject = attrs.field(factory=pmap, converter=_frozen_object)

    @property
    def arguments_json(self) -> str:
        """The arguments as compact JSON text (key-sorted)."""
        return dumps(self.arguments)


@attrs.frozen
class ToolSpec:
    """A tool as the model sees it: name, description, JSON Schema of its arguments.

    Example:
        >>> ToolSpec("search", "Search the web", {"type": "object"}).parameters["type"]
        'object'
    """

    name: str
    description: str
    parameters: JsonObject = attrs.field(converter=_frozen_object)


@attrs.frozen
class SystemMessage:
    """Instructions for the model (Anthropic: the top-level ``system`` field)."""

    content: str


@attrs.frozen
class UserMessage:
    """A user turn.

    Example:
        >>> UserMessage("What is 2 + 2?").content
        'What is 2 + 2?'
    """

    content: str


@attrs.frozen
class AssistantMessage:
    """A model turn: text, tool calls, or both."""

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


@attrs.frozen
class ToolResultMessage:
    """The result of one tool call, sent back to the model."""

    tool_call_id: str
    name: str
    content: str
    is_error: bool = False


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage
"""Any message of a conversation."""
