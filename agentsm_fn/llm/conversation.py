"""The thread so far: the conversation of a thread's earlier turns, as the providers' message types.

A :class:`Conversation` is what the next turn of a thread starts from: the messages of the
earlier turns, in order (each turn's user message, the assistant's tool calls and the tool
results that led to its answer, the answer), a summary standing for the oldest turns once
they were compressed, and the tokens the thread has spent so far. It is a value, derived by
each agent from a turn's final memory (a pure function), so starting a turn reads one stored
memory, never the journals before it.

Budgets are in estimated tokens (:func:`estimate_tokens`: about four characters a token,
plus a few per message), a pure function of the messages, so a check gives the same answer
on replay. A conversation over its budget keeps its newest whole turns within half of it
(:meth:`Conversation.keep_from`) and the rest is summarized by the agent's own compression
(an LLM call, an effect); :meth:`Conversation.compressed` then fits the summary into the
room left, so the result is always within the budget.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable
from typing import ClassVar, TypeAlias

import attrs
from pyrsistent import PVector, pvector

from agentsm_fn.llm.json import thaw
from agentsm_fn.llm.messages import AssistantMessage, Message, ToolResultMessage, UserMessage
from agentsm_fn.llm.replies import Usage

__all__ = [
    "CHARS_PER_TOKEN",
    "SUMMARY_PREFIX",
    "THREAD_COMPRESSION_PROMPT",
    "Conversation",
    "ConversationMessage",
    "ThreadBudget",
    "conversation_json",
    "estimate_tokens",
    "thread_compression_prompt",
]

ConversationMessage: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""A message of a thread's conversation (system prompts are the agent's, never the thread's)."""

CHARS_PER_TOKEN = 4
"""The estimate's characters per token (OpenAI's rule of thumb for English text)."""

_MESSAGE_TOKENS = 4  # a message's role and framing, as OpenAI counts them

SUMMARY_PREFIX = "Summary of the earlier conversation: "
"""How the summary of compressed turns is sent: one user message, before the kept turns."""


def _tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_tokens(message: Message) -> int:
    """The tokens ``message`` is estimated to take in a request: its text and tool calls, plus framing.

    Example:
        >>> from agentsm_fn.llm.messages import ToolCall
        >>> estimate_tokens(UserMessage("What is my name?")), estimate_tokens(UserMessage(""))
        (8, 4)
        >>> estimate_tokens(AssistantMessage(tool_calls=(ToolCall("c1", "search", {"q": "Ada"}),)))
        9
    """
    if isinstance(message, AssistantMessage):
        calls = sum(_tokens(call.name) + _tokens(call.arguments_json) for call in message.tool_calls)
        return _MESSAGE_TOKENS + _tokens(message.content) + calls
    return _MESSAGE_TOKENS + _tokens(message.content)


@attrs.frozen(kw_only=True)
class ThreadBudget:
    """A thread's token limits: what earlier turns a request may carry, and what the thread may spend.

    ``context``: the most estimated tokens of earlier turns (summary and kept messages) a turn's
    requests carry; a turn that starts over it compresses the oldest turns first (None: never).
    ``total``: the most tokens (input plus output, every call of every turn) the whole thread may
    spend; a turn that starts with it spent stops before its first call (None: no limit). A turn's
    own limit is the agent's per-run budget.

    Example:
        >>> ThreadBudget().context, ThreadBudget(total=10).spent(Usage(input_tokens=10))
        (16000, 'thread total tokens 10 >= budget 10')
    """

    context: int | None = 16_000
    total: int | None = None

    def spent(self, usage: Usage) -> str | None:
        """Say whether ``usage`` (the thread's so far) has reached ``total``; None if there is room."""
        if self.total is not None and usage.total_tokens >= self.total:
            return f"thread total tokens {usage.total_tokens} >= budget {self.total}"
        return None


def _messages(value: Iterable[ConversationMessage]) -> PVector[ConversationMessage]:
    return value if isinstance(value, PVector) else pvector(value)


@attrs.frozen(kw_only=True)
class Conversation:
    """A thread's earlier turns: their messages in order, a summary of compressed ones, tokens spent.

    ``summarized`` counts the earlier messages the summary stands for (they are no longer in
    ``messages``); ``turns`` the finished turns; ``last_turn`` how many of ``messages`` the last
    :meth:`then` added (the latest turn's own messages, for showing a thread).

    Example:
        >>> first = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello Ada!")])
        >>> [type(m).__name__ for m in first.sent()], first.turns, first.tokens()
        (['UserMessage', 'AssistantMessage'], 1, 14)
    """

    __codec_packed__: ClassVar[bool] = True
    """Stored as a payload of its own, encoded once per value: every memory of a turn holds it."""

    messages: PVector[ConversationMessage] = attrs.field(factory=pvector, converter=_messages)
    summary: str = ""
    summarized: int = 0
    usage: Usage = attrs.field(factory=Usage)
    turns: int = 0
    last_turn: int = 0

    @functools.cached_property
    def _estimate(self) -> int:
        return sum(map(estimate_tokens, self.sent()))

    def _estimated(self, tokens: int) -> Conversation:
        """This conversation, its estimate known to be ``tokens`` (a cache, not a field: never stored)."""
        object.__setattr__(self, "_estimate", tokens)
        return self

    def then(self, messages: Iterable[ConversationMessage], usage: Usage | None = None) -> Conversation:
        """This conversation with one more turn: its messages, and the tokens it spent.

        Example:
            >>> Conversation().then([UserMessage("hi")], Usage(input_tokens=3)).usage.input_tokens
            3
        """
        added = tuple(messages)
        longer = attrs.evolve(
            self,
            messages=self.messages.extend(added),
            usage=self.usage if usage is None else self.usage + usage,
            turns=self.turns + 1,
            last_turn=len(added),
        )
        return longer._estimated(self._estimate + sum(map(estimate_tokens, added)))

    @property
    def latest_turn(self) -> tuple[ConversationMessage, ...]:
        """The messages the last turn added (empty when none was added since a compression)."""
        return tuple(self.messages[len(self.messages) - self.last_turn :]) if self.last_turn else ()

    def sent(self) -> tuple[ConversationMessage, ...]:
        """What a request carries of the thread: the summary (as one user message), then the messages.

        Example:
            >>> Conversation(summary="The user is Ada.").sent()[0].content
            'Summary of the earlier conversation: The user is Ada.'
        """
        head = (UserMessage(SUMMARY_PREFIX + self.summary),) if self.summary else ()
        return (*head, *self.messages)

    def tokens(self) -> int:
        """The estimated tokens of :meth:`sent` (summed once per value, then kept up by :meth:`then`)."""
        return self._estimate

    def over(self, budget: int | None) -> bool:
        """True when :meth:`sent` takes more than ``budget`` estimated tokens (never with no budget).

        Example:
            >>> Conversation().then([UserMessage("x" * 40)]).over(10), Conversation().over(None)
            (True, False)
        """
        return budget is not None and self.tokens() > budget

    def keep_from(self, budget: int) -> int:
        """Where the kept messages begin: the newest whole turns within half of ``budget``.

        A turn boundary is a user message, so no tool result is kept without its call.

        Example:
            >>> c = Conversation().then([UserMessage("a" * 40)]).then([UserMessage("b")])
            >>> c.keep_from(100), c.keep_from(20), c.keep_from(0)
            (0, 1, 2)
        """
        room = budget // 2
        start, used = len(self.messages), 0
        for index in range(len(self.messages) - 1, -1, -1):
            used += estimate_tokens(self.messages[index])
            if used > room:
                break
            if isinstance(self.messages[index], UserMessage):
                start = index
        return start

    def older(self, budget: int) -> tuple[ConversationMessage, ...]:
        """The messages a compression within ``budget`` summarizes (those before :meth:`keep_from`)."""
        return tuple(self.messages[: self.keep_from(budget)])

    def compressed(self, summary: str, budget: int) -> Conversation:
        """The older turns replaced by ``summary``, cut to fit: within ``budget`` whatever its length.

        An empty ``summary`` (the compression failed) drops the older turns and keeps the last summary.

        Example:
            >>> c = Conversation().then([UserMessage("a" * 400)]).then([UserMessage("b")])
            >>> small = c.compressed("The user wrote many a's.", 40)
            >>> small.summarized, len(small.messages), small.tokens() <= 40, small.turns
            (1, 1, True, 2)
        """
        start = self.keep_from(budget)
        kept = self.messages[start:]
        held = sum(map(estimate_tokens, kept))
        room = budget - held - _MESSAGE_TOKENS
        allowed = room * CHARS_PER_TOKEN - len(SUMMARY_PREFIX)
        text = (summary.strip() or self.summary)[: max(allowed, 0)]
        shorter = attrs.evolve(
            self,
            messages=kept,
            summary=text,
            summarized=self.summarized + start,
            last_turn=min(self.last_turn, len(kept)),
        )
        return shorter._estimated(held + (_MESSAGE_TOKENS + _tokens(SUMMARY_PREFIX + text) if text else 0))


def _shown(message: ConversationMessage) -> dict[str, object]:
    if isinstance(message, UserMessage):
        return {"role": "user", "content": message.content}
    if isinstance(message, ToolResultMessage):
        return {"role": "tool", "name": message.name, "content": message.content, "error": message.is_error}
    calls = [{"name": c.name, "args": thaw(c.arguments)} for c in message.tool_calls]
    return {"role": "assistant", "content": message.content, **({"tool_calls": calls} if calls else {})}


THREAD_COMPRESSION_PROMPT = (
    "Summarize the following earlier conversation into a single concise paragraph\n"
    "that preserves all key facts, findings, and data needed to continue it.\n"
    "Earlier summary: {summary}\n"
    "Conversation: {conversation_json}"
)
"""The compression prompt of a thread's older turns (the ReAct agent's own, worded for a conversation)."""


def conversation_json(messages: Iterable[ConversationMessage]) -> str:
    """Messages as a JSON array of ``{role, content, ...}`` (for a compression prompt).

    Example:
        >>> conversation_json([UserMessage("I am Ada."), AssistantMessage("Hello Ada!")])
        '[{"role": "user", "content": "I am Ada."}, {"role": "assistant", "content": "Hello Ada!"}]'
    """
    return json.dumps([_shown(m) for m in messages], ensure_ascii=False)


def thread_compression_prompt(thread: Conversation, budget: int) -> str:
    """The prompt that asks for a summary of ``thread``'s older turns and its last summary.

    Example:
        >>> thread = Conversation().then([UserMessage("I am Ada.")]).then([UserMessage("Hi")])
        >>> thread_compression_prompt(thread, 10).splitlines()[-2:]
        ['Earlier summary: (none)', 'Conversation: [{"role": "user", "content": "I am Ada."}]']
    """
    return THREAD_COMPRESSION_PROMPT.format(
        summary=thread.summary or "(none)", conversation_json=conversation_json(thread.older(budget))
    )
