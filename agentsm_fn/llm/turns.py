"""How a machine takes part in a thread: one declared function from the thread so far to a turn's start.

A thread is an ordered chain of runs. Turn N's start memory is a pure function of turn N-1's
final memory and the new message, in two halves:

* the memory says what the thread is once its turn is over: :class:`Conversant`'s
  ``thread_so_far()`` (the earlier turns, this turn's messages, the tokens spent);
* the machine declares one function ``(thread so far, new message) -> start memory``,
  checked by ``mypy --strict`` through :func:`turn_start`, whose memory must be a
  :class:`Conversant`.

:class:`TurnStart` binds the two. The built-in agents' memories are conversant, and an agent's
memory used as a template starts turns itself (:class:`TurnTemplate`: ``template.start_turn``
keeps the template's tools, prompts and limits and takes the thread and message).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, Self, TypeVar, cast, runtime_checkable

import attrs

from agentsm_fn.llm.conversation import Conversation

__all__ = ["Conversant", "TurnStart", "TurnTemplate", "template_turns", "turn_start"]

MemoryT = TypeVar("MemoryT")
ConversantT = TypeVar("ConversantT", bound="Conversant")


@runtime_checkable
class Conversant(Protocol):
    """A memory that can say what its thread is once its turn is over."""

    def thread_so_far(self) -> Conversation:
        """The conversation after this memory's turn: the earlier turns, this one's messages, tokens spent."""
        ...


@runtime_checkable
class TurnTemplate(Conversant, Protocol):
    """A conversant memory that starts a turn itself: its settings, the thread, and the message."""

    def start_turn(self, thread: Conversation, message: str) -> Self:
        """A new turn's start memory: this memory's settings, ``thread`` as the earlier turns, ``message``."""
        ...


@attrs.frozen(kw_only=True)
class TurnStart(Generic[MemoryT]):
    """A machine's part in a thread: how a turn starts, and what the thread is after one.

    ``start`` is the declared function ``(thread so far, new message) -> start memory``;
    ``so_far`` reads the thread from a turn's final memory. Make one with :func:`turn_start`.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> @attrs.frozen
        ... class Echo:
        ...     thread: Conversation
        ...     said: str
        ...     def thread_so_far(self) -> Conversation:
        ...         return self.thread.then([UserMessage(self.said)])
        >>> turns = turn_start(Echo)
        >>> second = turns.after(turns.first("I am Ada."), "What is my name?")
        >>> [m.content for m in second.thread.messages], second.said
        (['I am Ada.'], 'What is my name?')
    """

    start: Callable[[Conversation, str], MemoryT]
    so_far: Callable[[MemoryT], Conversation]

    def first(self, message: str) -> MemoryT:
        """The first turn's start memory: an empty thread and ``message``."""
        return self.start(Conversation(), message)

    def after(self, previous: MemoryT, message: str) -> MemoryT:
        """The next turn's start memory from the previous turn's final memory and ``message``."""
        return self.start(self.so_far(previous), message)

    def thread(self, previous: MemoryT | None) -> Conversation:
        """The thread after the turn that ended in ``previous`` (None: before the first turn)."""
        return Conversation() if previous is None else self.so_far(previous)


def _so_far(memory: Conversant) -> Conversation:
    return memory.thread_so_far()


def turn_start(start: Callable[[Conversation, str], ConversantT]) -> TurnStart[ConversantT]:
    """A machine's declared turn start, whose memory says the thread so far (checked by mypy).

    Example:
        >>> @attrs.frozen
        ... class Said:
        ...     thread: Conversation
        ...     message: str
        ...     def thread_so_far(self) -> Conversation:
        ...         return self.thread
        >>> turn_start(Said).first("What is my name?").message
        'What is my name?'
    """
    return TurnStart(start=start, so_far=_so_far)


def template_turns(template: MemoryT | None) -> TurnStart[MemoryT] | None:
    """How a program whose template is ``template`` starts turns: the template's own, else None.

    Example:
        >>> @attrs.frozen
        ... class Chat:
        ...     thread: Conversation = Conversation()
        ...     message: str = ""
        ...     def thread_so_far(self) -> Conversation:
        ...         return self.thread
        ...     def start_turn(self, thread: Conversation, message: str) -> "Chat":
        ...         return Chat(thread, message)
        >>> template_turns(Chat()).first("hi").message, template_turns("not a memory")
        ('hi', None)
    """
    if not isinstance(template, TurnTemplate):
        return None
    # The narrowed type is the intersection of MemoryT and TurnTemplate, whose start_turn returns
    # that type (Self); mypy cannot spell it, so the result is cast back to MemoryT's TurnStart.
    return cast(TurnStart[MemoryT], turn_start(template.start_turn))
