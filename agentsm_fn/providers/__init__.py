"""LLM providers over httpx: OpenAI-compatible, Anthropic, Ollama; streaming; retries.

The only package that imports httpx. Pure codecs (``*_codec``, ``*_stream``,
``anthropic_turns``) map the provider-neutral :mod:`agentsm_fn.llm` values to
each wire format and back; :class:`Transport` is the thin sync/async IO with
the SDK-style :class:`RetryPolicy`; :class:`HttpProvider` implements the
``LlmProvider`` and ``AsyncLlmProvider`` protocols and never raises.

Example:
    >>> provider = openai_provider("gpt-4o-mini", api_key="sk-test", env={})
    >>> provider.transport.codec.name
    'openai'
"""

from agentsm_fn.providers.anthropic_codec import AnthropicCodec
from agentsm_fn.providers.anthropic_turns import build_turns
from agentsm_fn.providers.codec import Codec, StreamDecoder, WireRequest
from agentsm_fn.providers.events import (
    RetryScheduled,
    StreamCompleted,
    StreamEvent,
    TextDelta,
    ToolCallArguments,
    ToolCallStarted,
)
from agentsm_fn.providers.factories import anthropic_provider, ollama_provider, openai_provider
from agentsm_fn.providers.ollama_codec import OllamaCodec
from agentsm_fn.providers.openai_codec import OpenAiCodec
from agentsm_fn.providers.provider import POOL_LIMITS, EventSink, HttpProvider
from agentsm_fn.providers.retry import RetryPolicy
from agentsm_fn.providers.secrets import Secret, redact
from agentsm_fn.providers.structured import Structured
from agentsm_fn.providers.transport import Transport

__all__ = [
    "AnthropicCodec",
    "Codec",
    "EventSink",
    "HttpProvider",
    "OllamaCodec",
    "OpenAiCodec",
    "POOL_LIMITS",
    "RetryPolicy",
    "RetryScheduled",
    "Secret",
    "StreamCompleted",
    "StreamDecoder",
    "StreamEvent",
    "Structured",
    "TextDelta",
    "ToolCallArguments",
    "ToolCallStarted",
    "Transport",
    "WireRequest",
    "anthropic_provider",
    "build_turns",
    "ollama_provider",
    "openai_provider",
    "redact",
]
