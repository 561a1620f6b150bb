"""A thread's messages numbered by turn: the turn each belongs to, and its place in that turn.

A thread's conversation (:class:`~agentsm_fn.llm.conversation.Conversation`) keeps its messages in
order, each turn's beginning with the user's message (a turn boundary is a user message, as the
conversation's own compression assumes). Frontends show a thread so: the HTTP API lists its
messages with their turns, AG-UI names its ``MESSAGES_SNAPSHOT`` messages by them, and
``agentsm-runs thread messages`` prints them.
"""

from __future__ import annotations

import attrs

from agentsm_fn.llm.conversation import Conversation, ConversationMessage
from agentsm_fn.llm.messages import UserMessage

__all__ = ["Numbered", "numbered"]


@attrs.frozen
class Numbered:
    """One message of a thread, with its turn and its place in that turn (0: the user's message)."""

    turn: int
    place: int
    message: ConversationMessage


def numbered(conversation: Conversation) -> tuple[Numbered, ...]:
    """The conversation's messages, each with its turn and its place in it.

    The last user message is the conversation's last turn (``conversation.turns - 1``); the
    messages before the first user message (none, unless compression cut a turn) are the
    turn before it.

    Example:
        >>> from agentsm_fn.llm.messages import AssistantMessage
        >>> c = Conversation().then([UserMessage("I am Ada."), AssistantMessage("Hello Ada!")])
        >>> c = c.then([UserMessage("My name?")])
        >>> [(n.turn, n.place, n.message.content) for n in numbered(c)]
        [(0, 0, 'I am Ada.'), (0, 1, 'Hello Ada!'), (1, 0, 'My name?')]
    """
    users = sum(isinstance(message, UserMessage) for message in conversation.messages)
    turn, place = conversation.turns - users - 1, 0
    found: list[Numbered] = []
    for message in conversation.messages:
        if isinstance(message, UserMessage):
            turn, place = turn + 1, 0
        found.append(Numbered(max(turn, 0), place, message))
        place += 1
    return tuple(found)
