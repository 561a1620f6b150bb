"""A child's start memory given as a turn: the child program's own template starts it.

A parent that runs an agent as a child rarely knows the child's memory (its tools, prompt and
limits are the child program's). :class:`StartTurn` asks for a new turn of the child instead: the
child's program (``Durable.turns``, its template's) makes the start memory from ``thread`` (what
the child sees of the conversation so far) and ``message``, where the child run is created, so the
stored child starts from a memory of its own kind and replays exactly.
"""

from __future__ import annotations

import attrs

from agentsm_fn.llm.conversation import Conversation

__all__ = ["StartTurn"]


@attrs.frozen(kw_only=True)
class StartTurn:
    """A child run's start: a new turn of the child program, from ``thread`` and ``message``.

    Give it as :class:`~agentsm_fn.teams.ChildRun`'s ``memory``; a child program that starts no
    turns (no template) makes the child's outcome a failure saying so.

    Example:
        >>> from agentsm_fn.teams import ChildRun
        >>> ChildRun(program="app:REFUNDS", memory=StartTurn(message="Refund A-17")).memory.message
        'Refund A-17'
    """

    message: str
    thread: Conversation = attrs.field(factory=Conversation)
