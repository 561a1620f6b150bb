"""What an LLM call yields: a reply (tool calls or a final answer) or a typed failure.

Failure kinds::

    LlmFailureKind
    ├── HTTP_STATUS             the server answered 4xx/5xx (status set)
    ├── CONNECTION              could not connect, or the connection dropped
    ├── TIMEOUT                 no answer in time
    ├── MALFORMED_REPLY         the body is not the shape the protocol promises
    ├── INVALID_TOOL_ARGUMENTS  a tool call's arguments are not a JSON object
    ├── REFUSAL                 the model refused (stop_reason "refusal")
    ├── TRUNCATED               output cut by the token limit (length / max_tokens)
    ├── STREAM_ERROR            an error event arrived inside a 200 stream
    ├── CONFIGURATION           missing key, bad base URL, ...
    ├── SCRIPT_EXHAUSTED        a scripted (test) LLM ran out of responses
    └── EFFECT_FAILED           the call was not performed: its performer raised or timed
                                out, or the outcome is unknown after a crash (an EffectFailure)
"""

from __future__ import annotations

import enum
from typing import TypeAlias

import attrs

from agentsm_fn.llm.messages import ToolCall

__all__ = ["LlmFailure", "LlmFailureKind", "LlmOutcome", "LlmReply", "Usage"]


@attrs.frozen
class Usage:
    """Token counts of one call, or accumulated over a run.

    Example:
        >>> (Usage(input_tokens=10, output_tokens=2) + Usage(input_tokens=1)).total_tokens
        13
    """

    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )


@attrs.frozen(kw_only=True)
class LlmReply:
    """A successful reply: tool calls if any (then it is a tool-call turn), else a final answer.

    ``confidence`` is in [0, 1]: derived from logprobs where the provider gives
    them and they were asked for, otherwise 1.0. ``model``, ``response_id`` and
    ``provider`` say who answered (the provider's name: "openai", "anthropic",
    "ollama"; "" when unknown, as for a scripted reply).

    Example:
        >>> LlmReply(content="Paris.").is_tool_call
        False
    """

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Usage()
    confidence: float = 1.0
    finish_reason: str = ""
    model: str = ""
    response_id: str = ""
    provider: str = ""

    @property
    def is_tool_call(self) -> bool:
        """True when the model asked for at least one tool call."""
        return bool(self.tool_calls)


class LlmFailureKind(enum.Enum):
    """Why an LLM call produced no usable reply."""

    HTTP_STATUS = "http_status"
    CONNECTION = "connection"
    TIMEOUT = "timeout"
    MALFORMED_REPLY = "malformed_reply"
    INVALID_TOOL_ARGUMENTS = "invalid_tool_arguments"
    REFUSAL = "refusal"
    TRUNCATED = "truncated"
    STREAM_ERROR = "stream_error"
    CONFIGURATION = "configuration"
    SCRIPT_EXHAUSTED = "script_exhausted"
    EFFECT_FAILED = "effect_failed"


@attrs.frozen(kw_only=True)
class LlmFailure:
    """A typed LLM failure; ``message`` never contains credentials.

    Example:
        >>> LlmFailure(kind=LlmFailureKind.HTTP_STATUS, status=429, message="rate limited").describe()
        'http_status (429): rate limited'
    """

    kind: LlmFailureKind
    message: str
    status: int | None = None
    provider: str = ""
    attempts: int = 1

    def describe(self) -> str:
        """One line for logs, traces and memory.error."""
        status = f" ({self.status})" if self.status is not None else ""
        return f"{self.kind.value}{status}: {self.message}"


LlmOutcome: TypeAlias = LlmReply | LlmFailure
"""What performing an LLM call yields."""
