"""A small conversant machine for the thread tests: it notes the message, then asks for a reply.

Each turn performs two effects: ``Note`` (not retry-safe: a write somewhere, counted in the
file ``NOTES`` names) and ``Reply`` (retry-safe, as an LLM call is: asked again after a crash).
The reply is made from the message and how many messages the thread held when the turn
started, so a test can read off every turn's history. With ``CHATTER_DIE_ON`` set to a message,
the process kills itself (SIGKILL) when asked to reply to it: a crash in the middle of a turn.
A message that begins with ``ask:`` waits for a person's reply (the run waits, as for an approval).
"""

from __future__ import annotations

import enum
import os
import signal
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.core import SUSPEND, Effect, Fault, Perform, Suspend, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.llm import AssistantMessage, Conversation, UserMessage, turn_start
from agentsm_fn.shell import Performers, Shell, StepClock

ASK = "ask:"
"""A message that begins so waits for a person's reply (its run waits, as for an approval)."""

NOTES: list[Path] = []
"""The file each ``Note`` is counted in (at most one path), set by a test or a sender process."""


class S(enum.Enum):
    NOTING = "noting"
    REPLYING = "replying"
    DONE = "done"


class E(enum.Enum):
    NOTED = "noted"
    REPLIED = "replied"


@attrs.frozen
class Note(Effect[bool]):
    """Write the message down somewhere (not retry-safe)."""

    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    message: str


@attrs.frozen
class Reply(Effect[str]):
    """Ask for a reply to ``message`` with ``seen`` earlier messages (retry-safe, as an LLM call)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    retry_safe = True
    message: str
    seen: int


@attrs.frozen(kw_only=True)
class Chat:
    """A turn's memory: the thread so far when it started, its message, and its reply."""

    thread: Conversation = attrs.field(factory=Conversation)
    message: str = ""
    reply: str = ""

    def thread_so_far(self) -> Conversation:
        """The thread after this turn: its message and reply added."""
        return self.thread.then([UserMessage(self.message), AssistantMessage(self.reply)])


def start(thread: Conversation, message: str) -> Chat:
    """A turn's start memory: the thread so far and the new message (the declared turn start)."""
    return Chat(thread=thread, message=message)


def note(chat: Chat) -> Result[Perform[bool, Chat], Fault]:
    return perform(Note(chat.message), chat)


def noted(chat: Chat, _: bool) -> Result[tuple[Literal[E.NOTED], Chat], Fault]:
    return emit(E.NOTED, chat)


def ask(chat: Chat) -> Result[Perform[str, Chat], Fault]:
    return perform(Reply(chat.message, len(chat.thread.messages)), chat)


def replied(chat: Chat, reply: str) -> Result[tuple[Literal[E.REPLIED], Chat], Fault]:
    return emit(E.REPLIED, attrs.evolve(chat, reply=reply))


CHATTER: Machine[S, E, Chat] = define_machine(
    name="chatter",
    states=S,
    events=E,
    initial=S.NOTING,
    terminals={S.DONE},
    table={(S.NOTING, E.NOTED): S.REPLYING, (S.REPLYING, E.REPLIED): S.DONE},
    handlers={S.NOTING: effectful(note, noted), S.REPLYING: effectful(ask, replied)},
)


def perform_note(effect: Note) -> bool:
    if NOTES:
        with NOTES[0].open("a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {effect.message}\n")
    return True


def perform_reply(effect: Reply) -> str | Suspend:
    if os.environ.get("CHATTER_DIE_ON") == effect.message:
        os.kill(os.getpid(), signal.SIGKILL)
    if effect.message.startswith(ASK):
        return SUSPEND  # a person answers it, from any process
    return f"{effect.message} (after {effect.seen})"


def shell() -> Shell:
    performers = Performers().on(Note, perform_note).on(Reply, perform_reply)
    return Shell(performers=performers, clock=StepClock(start=1000.0))


CHATTY: Durable[S, E, Chat] = Durable(
    name="tests.threads.chatter:CHATTY", machine=CHATTER, shell=shell, turns=turn_start(start)
)
"""The machine as a durable program whose runs are threads' turns."""
