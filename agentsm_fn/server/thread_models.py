"""The ``/threads`` routes' request and response bodies, as pydantic models (see ``models`` for runs').

A thread is an ordered chain of runs, one per turn (docs/threads.md); these bodies show a
thread, its turns, its conversation, and what a message sent to it made. Request bodies refuse
unknown fields, as every request body of the server does.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, JsonValue

from agentsm_fn.server.models import RUN_ID, PendingItem, RunSummary, _Request

__all__ = [
    "DeletedThread",
    "ForkThreadRequest",
    "SendRequest",
    "ThreadCall",
    "ThreadMessage",
    "ThreadMessages",
    "ThreadPage",
    "ThreadSummary",
    "TurnPage",
    "TurnResult",
    "TurnSummary",
]

TurnStatusName = Literal["queued", "running", "waiting", "ready", "finished", "failed"]

MESSAGE_LIMIT = 100_000
"""The most characters a message sent to a thread may have (the body limit applies too)."""


class TurnSummary(BaseModel):
    """One turn of a thread: its place, its run, the message it was started with, where it stands."""

    thread_id: str
    turn: int
    run_id: str
    message: str
    created: float
    status: TurnStatusName = Field(description="its run's status, or queued before its run exists")
    holder: str = Field(
        default="",
        description="the agent (module:attribute) holding the conversation after it: the one its run handed "
        "it to, else its run's program ('' while queued)",
    )


class ThreadSummary(BaseModel):
    """A stored thread: its machine, how many turns it took, where it came from, and its last turn."""

    thread_id: str
    machine: str
    created: float
    updated: float
    turns: int
    title: str
    parent: str | None = Field(description="the thread it was forked from (None: not a fork)")
    parent_turn: int | None = Field(description="the turn of ``parent`` it was forked at")
    last: TurnSummary | None = Field(description="its last turn (None before the first)")
    holder: str = Field(
        default="", description="the agent holding the conversation: the next turn is a run of it"
    )


class ThreadPage(BaseModel):
    """A page of threads, newest first; ``next`` is the cursor of the following page (None: the last)."""

    threads: list[ThreadSummary]
    next: str | None


class TurnPage(BaseModel):
    """A thread's turns in order; ``next`` is the ``start`` of the following page (None: the last)."""

    turns: list[TurnSummary]
    next: int | None


class ThreadCall(BaseModel):
    """A tool call an assistant message made: its id, the tool, its arguments."""

    id: str
    name: str
    arguments: dict[str, JsonValue]


class ThreadMessage(BaseModel):
    """One message of a thread's conversation, with the turn it belongs to (every string redacted)."""

    turn: int
    role: Literal["user", "assistant", "tool"]
    content: str
    tool_calls: list[ThreadCall] = Field(default_factory=list, description="an assistant's tool calls")
    tool_call_id: str | None = Field(default=None, description="the call a tool message answers")
    error: bool = Field(default=False, description="a tool message that reports a failure")


class ThreadMessages(BaseModel):
    """A thread's conversation after a turn: what the next turn's LLM requests carry of it.

    The oldest turns may be compressed into ``summary`` (``summarized`` messages no longer listed).
    """

    thread_id: str
    turns: int = Field(description="the turns the conversation holds (the next turn's number)")
    summary: str
    summarized: int
    messages: list[ThreadMessage]


class TurnResult(BaseModel):
    """What a message sent to a thread made: its turn, its run, and the messages the turn added."""

    thread_id: str
    turn: int
    run: RunSummary
    messages: list[ThreadMessage] = Field(
        description="the messages this turn added (its user message, tool calls, answer) once it ended"
    )
    pending: PendingItem | None = Field(
        description="what the turn's run waits on (an approval): the thread takes no message until then"
    )


class DeletedThread(BaseModel):
    """A thread deleted, with the runs deleted with it (those no other thread names)."""

    thread_id: str
    runs: list[str]


class SendRequest(_Request):
    """A message to a thread: it becomes the thread's next turn, run in the server's process."""

    message: str = Field(min_length=1, max_length=MESSAGE_LIMIT)
    machine: str | None = Field(
        default=None,
        max_length=500,
        description="the served machine whose runs are the thread's turns: needed to start a new thread",
    )
    queue: bool = Field(
        default=False,
        description="while the last turn runs or waits: wait for it, then run (true), or be refused (false)",
    )


class ForkThreadRequest(_Request):
    """Edit and run again from here: a new thread of the turns before ``turn``, then ``message``."""

    turn: int = Field(ge=0, le=10**9)
    message: str = Field(min_length=1, max_length=MESSAGE_LIMIT)
    thread_id: str | None = Field(default=None, pattern=RUN_ID, description="the new thread's id")
