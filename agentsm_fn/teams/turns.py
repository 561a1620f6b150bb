"""A child's start memory given as a turn: the child program's own template starts it.

A parent that runs an agent as a child rarely knows the child's memory (its tools, prompt and
limits are the child program's). :class:`StartTurn` asks for a new turn of the child instead: the
child's program (``Durable.turns``, its template's) makes the start memory from ``thread`` (what
the child sees of the conversation so far) and ``message``, where the child run is created, so the
stored child starts from a memory of its own kind and replays exactly.

A memory that can hand its conversation to another agent says, once its run ended, which agent
it handed it to (:class:`Handing`): within a thread, the next turn goes to that agent.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs

from agentsm_fn.llm.conversation import Conversation

__all__ = ["Handing", "StartTurn"]


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


@runtime_checkable
class Handing(Protocol):
    """A memory that can hand the conversation to another agent (a handoff), and says to whom."""

    def handed_to(self) -> str | None:
        """The program (``module:attribute``) this run handed the conversation to; None if it did not."""
        ...
