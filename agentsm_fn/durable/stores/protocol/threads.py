"""Threads in the store: what a thread and its turns are, and the store methods that keep them.

A thread is an ordered chain of runs. Its row holds its id, the ``module:attribute`` name of the
durable machine whose runs are its turns, and ``turns``: how many turns it has taken, which is
also the number of the next turn. Each turn's row holds its place (``turn``), its run's id, the
message it was started with, and, once it ended, the thread so far after it (the encoded
:class:`~agentsm_fn.llm.conversation.Conversation`), so starting the next turn reads one stored
value, never the journals before it.

The next turn's number is taken by one conditional write (:meth:`ThreadStore.take_turn`): the
thread's ``turns`` goes from N to N + 1 only if it is N, as an answer is taken once. Two senders
that read the same thread race for that write: one takes turn N, the other is refused
(:class:`~agentsm_fn.durable.thread_errors.ThreadBusy`, naming turn N), so no two turns ever
start from the same history. A turn's run is stored in the same transaction, owned by the
process that took the turn: if that process dies, ``recover`` finishes the turn like any run.

A thread forked at turn N (:meth:`ThreadStore.fork_thread`) holds the turns before N of the
thread it came from (the same runs: a run belongs to every thread whose turns name it) and its
own turn N, a run forked from the original turn N's run. Deleting a thread deletes its turns
and the runs no other thread names, with their journals, in one transaction.

A turn whose run handed the conversation to another agent (a handoff) names that agent, its
holder: the next turn is a run of the holder's program (``TurnRecord.holder``).
"""

from __future__ import annotations

import enum
from typing import Protocol, runtime_checkable

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStatus, RunStore
from agentsm_fn.durable.thread_errors import ThreadBusy, ThreadExists, ThreadNotFound

__all__ = [
    "NewThread",
    "NewTurn",
    "ThreadQuery",
    "ThreadRecord",
    "ThreadStore",
    "TurnRecord",
    "TurnStatus",
]


class TurnStatus(enum.Enum):
    """Where a turn stands: its run's status, or QUEUED before its run is made."""

    QUEUED = "queued"
    """Sent while the turn before it had not ended; its run starts once that one ends."""
    RUNNING = "running"
    WAITING = "waiting"
    """Its run waits for an answer (an approval): the thread takes no message meanwhile."""
    READY = "ready"
    FINISHED = "finished"
    FAILED = "failed"

    @property
    def ended(self) -> bool:
        """True once the turn's run finished or failed: the thread may take its next message.

        Example:
            >>> TurnStatus.FAILED.ended, TurnStatus.WAITING.ended
            (True, False)
        """
        return self in (TurnStatus.FINISHED, TurnStatus.FAILED)

    @classmethod
    def of(cls, run: RunStatus | None) -> TurnStatus:
        """The status of a turn whose run has status ``run`` (None: no run yet, QUEUED).

        Example:
            >>> TurnStatus.of(RunStatus.WAITING), TurnStatus.of(None)
            (<TurnStatus.WAITING: 'waiting'>, <TurnStatus.QUEUED: 'queued'>)
        """
        return cls.QUEUED if run is None else cls(run.value)


@attrs.frozen(kw_only=True)
class NewThread:
    """What a thread is created with. A fork names the thread and turn it was forked at."""

    thread_id: str
    machine: str
    created: float
    title: str = ""
    parent: str = ""
    parent_turn: int = -1


@attrs.frozen(kw_only=True)
class NewTurn:
    """A turn to take: its thread, its number, its run's id, the message, when it was sent."""

    thread_id: str
    turn: int
    run_id: str
    message: str
    created: float


@attrs.frozen(kw_only=True)
class TurnRecord:
    """One turn of a thread as stored: its place, its run, its message, where it stands.

    ``so_far_kept`` is True once the thread so far after this turn is stored (written when
    the turn ends in the process that ran it; a turn finished by ``recover`` gets it when
    the next turn starts, from one replay of this turn's run).

    Example:
        >>> TurnRecord(thread_id="t1", turn=0, run_id="r1", message="hi", created=1.0,
        ...            status=TurnStatus.FINISHED).status.ended
        True
    """

    thread_id: str
    turn: int
    run_id: str
    message: str
    created: float
    status: TurnStatus
    so_far_kept: bool = False
    holder: str = ""
    """The program (``module:attribute``) that holds the conversation after this turn: the agent
    its run handed the conversation to, else its run's own program ('' while queued). Known
    once ``so_far_kept``: the next turn is started on it."""


@attrs.frozen(kw_only=True)
class ThreadRecord:
    """One stored thread: its id, machine, turns taken, and its last turn (None before the first).

    Example:
        >>> ThreadRecord(thread_id="t1", machine="app:AGENT", created=1.0, updated=1.0).turns
        0
    """

    thread_id: str
    machine: str
    created: float
    updated: float
    turns: int = 0
    title: str = ""
    parent: str = ""
    parent_turn: int = -1
    last: TurnRecord | None = None

    @property
    def holder(self) -> str:
        """The program that holds the conversation: its last turn's holder, else the thread's machine.

        Example:
            >>> ThreadRecord(thread_id="t1", machine="app:TRIAGE", created=1.0, updated=1.0).holder
            'app:TRIAGE'
        """
        return self.last.holder if self.last is not None and self.last.holder else self.machine


@attrs.frozen(kw_only=True)
class ThreadQuery:
    """Which threads a page holds: filters, the page size, and where the previous page ended.

    Newest first (then by id); ``after`` is ``(created, thread_id)`` of the previous page's
    last thread (None: the first page), so a thread created meanwhile never shifts the pages.
    ``parent`` keeps the threads forked from that thread.
    """

    machine: str | None = None
    parent: str | None = None
    limit: int = 50
    after: tuple[float, str] | None = None


@runtime_checkable
class ThreadStore(RunStore, Protocol):
    """A run store that keeps threads (both stores do). Every method returns a value; none raises."""

    def create_thread(self, thread: NewThread) -> Result[None, ThreadExists | StoreFailure]:
        """Store a new thread with no turns; a thread of that id already stored is ``ThreadExists``."""
        ...

    def thread(self, thread_id: str) -> Result[ThreadRecord, ThreadNotFound | StoreFailure]:
        """The thread's record, with its last turn (one read)."""
        ...

    def threads(self, query: ThreadQuery) -> Result[tuple[ThreadRecord, ...], StoreFailure]:
        """One page of threads, newest first (one query on an index)."""
        ...

    def turns(
        self, thread_id: str, start: int = 0, limit: int | None = None
    ) -> Result[tuple[TurnRecord, ...], StoreFailure]:
        """The thread's turns from number ``start`` on (at most ``limit``), in order."""
        ...

    def turns_of_run(self, run_id: str) -> Result[tuple[TurnRecord, ...], StoreFailure]:
        """The turns whose run is ``run_id`` (one per thread that holds it; none for a run of no thread)."""
        ...

    def take_turn(
        self, turn: NewTurn, run: NewRun | None
    ) -> Result[None, ThreadBusy | ThreadNotFound | StoreFailure]:
        """Take turn ``turn.turn`` if it is the thread's next, with its run (None: queued); one transaction.

        The conditional write that orders a thread's messages: refused with ``ThreadBusy``
        (naming the turn that took the place) when another sender took it first.
        """
        ...

    def start_queued(self, thread_id: str, turn: int, run: NewRun) -> Result[bool, StoreFailure]:
        """Store the run of a queued turn (``run.run_id`` is the turn's); False if it was stored already."""
        ...

    def so_far(self, thread_id: str, turn: int) -> Result[bytes | None, StoreFailure]:
        """The encoded thread so far after turn ``turn`` (None: not kept yet, or no such turn)."""
        ...

    def keep_so_far(self, run_id: str, so_far: bytes, holder: str = "") -> Result[None, StoreFailure]:
        """Keep the thread so far after the turn whose run is ``run_id`` (the first value kept stays).

        ``holder`` names the agent its run handed the conversation to ('': none, its own program holds it).
        """
        ...

    def fork_thread(
        self, thread: NewThread, turn: NewTurn, run: NewRun
    ) -> Result[None, ThreadExists | StoreFailure]:
        """Store ``thread``, forked from ``thread.parent`` at ``thread.parent_turn``, in one transaction.

        Its turns before ``parent_turn`` are the parent's (the same runs); its turn
        ``parent_turn`` is ``turn``, whose run ``run`` is stored owned by ``run.owner``.
        """
        ...

    def delete_thread(self, thread_id: str) -> Result[tuple[str, ...], ThreadNotFound | StoreFailure]:
        """Delete the thread, its turns and the runs no other thread names (journals too): one transaction.

        The ids of the runs deleted.
        """
        ...
