"""Provider-neutral LLM values: messages, requests, replies, failures, the call effect, a thread's turns."""

from agentsm_fn.llm.call import (
    RESULT_TOOL,
    AnyLlmProvider,
    AsyncLlmProvider,
    LlmCall,
    LlmProvider,
    LlmRequest,
)
from agentsm_fn.llm.conversation import (
    CHARS_PER_TOKEN,
    SUMMARY_PREFIX,
    THREAD_COMPRESSION_PROMPT,
    Conversation,
    ConversationMessage,
    ThreadBudget,
    conversation_json,
    estimate_tokens,
    thread_compression_prompt,
)
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
from agentsm_fn.llm.numbering import Numbered, numbered
from agentsm_fn.llm.replies import LlmFailure, LlmFailureKind, LlmOutcome, LlmReply, Usage
from agentsm_fn.llm.turns import Conversant, TurnStart, TurnTemplate, template_turns, turn_start

__all__ = [
    "AnyLlmProvider",
    "AssistantMessage",
    "AsyncLlmProvider",
    "CHARS_PER_TOKEN",
    "Conversant",
    "Conversation",
    "ConversationMessage",
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
    "Numbered",
    "RESULT_TOOL",
    "SUMMARY_PREFIX",
    "SystemMessage",
    "THREAD_COMPRESSION_PROMPT",
    "ThreadBudget",
    "ToolCall",
    "ToolResultMessage",
    "ToolSpec",
    "TurnStart",
    "TurnTemplate",
    "Usage",
    "UserMessage",
    "conversation_json",
    "dumps",
    "estimate_tokens",
    "freeze",
    "freeze_object",
    "numbered",
    "template_turns",
    "thaw",
    "thread_compression_prompt",
    "turn_start",
]
