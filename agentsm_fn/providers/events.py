"""Provider-neutral stream events: what a caller sees while a reply is produced.

A stream is a sequence of events that always ends with exactly one
:class:`StreamCompleted` carrying the final :data:`~agentsm_fn.llm.LlmOutcome` (the same
value ``complete`` returns). Text and tool-call fragments arrive as they are
decoded; :class:`RetryScheduled` reports the transport's state changes.

Event tree::

    StreamEvent
    ├── TextDelta          a piece of answer text
    ├── ToolCallStarted    the model began tool call ``index`` (id and name known)
    ├── ToolCallArguments  a fragment of tool call ``index``'s JSON arguments
    ├── RetryScheduled     an attempt failed; the next one starts after ``delay`` s
    └── StreamCompleted          the final reply or failure (always last)
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from agentsm_fn.llm.replies import LlmOutcome

__all__ = [
    "RetryScheduled",
    "StreamCompleted",
    "StreamEvent",
    "TextDelta",
    "ToolCallArguments",
    "ToolCallStarted",
]


@attrs.frozen
class TextDelta:
    """A piece of the answer text, in order.

    Example:
        >>> TextDelta("Hel").text
        'Hel'
    """

    text: str


@attrs.frozen
class ToolCallStarted:
    """The model began a tool call at position ``index`` of its reply.

    Example:
        >>> ToolCallStarted(0, "call_1", "search").name
        'search'
    """

    index: int
    id: str
    name: str


@attrs.frozen
class ToolCallArguments:
    """A fragment of the JSON arguments of tool call ``index`` (concatenate them).

    Example:
        >>> ToolCallArguments(0, '{"q"').fragment
        '{"q"'
    """

    index: int
    fragment: str


@attrs.frozen
class RetryScheduled:
    """Attempt ``attempt`` failed with ``reason``; the next starts after ``delay`` seconds.

    Example:
        >>> RetryScheduled(attempt=1, delay=0.5, reason="http_status (529)").delay
        0.5
    """

    attempt: int
    delay: float
    reason: str


@attrs.frozen
class StreamCompleted:
    """The final outcome of the call; always the last event of a stream.

    Example:
        >>> from agentsm_fn.llm import LlmReply
        >>> StreamCompleted(LlmReply(content="hi")).outcome.content
        'hi'
    """

    outcome: LlmOutcome


StreamEvent: TypeAlias = TextDelta | ToolCallStarted | ToolCallArguments | RetryScheduled | StreamCompleted
"""Anything a stream yields."""
