"""Provider-neutral LLM values: messages, tool calls, requests, replies, failures, the call effect."""

from agentsm_fn.llm.call import AnyLlmProvider, AsyncLlmProvider, LlmCall, LlmProvider, LlmRequest
from agentsm_fn.llm.json import JsonObject, JsonValue, dumps, freeze, freeze_object, thaw
from agentsm_fn.llm.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply, Usage

__all__ = [
    "AnyLlmProvider",
    "AssistantMessage",
    "AsyncLlmProvider",
    "JsonObject",
    "JsonValue",
    "LlmCall",
    "LlmFailure",
    "LlmFailureKind",
    "LlmOutcome",
    "LlmProvider",
    "LlmReply",
    "LlmRequest",
    "Message",
    "SystemMessage",
    "ToolCall",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserMessage",
    "dumps",
    "freeze",
    "freeze_object",
    "thaw",
]
