"""What can go wrong with a thread: typed values, never exceptions.

::

    ThreadError
    ├── DurableError          anything a durable run can fail with (the turn's run)
    ├── ThreadNotFound        no stored thread has this id
    ├── ThreadExists          a thread of this id is stored already
    ├── ThreadBusy            the thread's last turn has not ended (running, waiting for an answer, queued)
    ├── NoSuchTurn            the thread has no turn of that number
    ├── OtherMachine          the thread's turns are runs of another machine
    ├── NotConversational     the machine declares no turn start (``Durable.turns``)
    ├── ThreadIdRefused       a thread id chosen for a new thread looks like a credential
    └── HolderUnknown         the agent that holds the thread (after a handoff) cannot take its turn
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from agentsm_fn.durable.errors import DurableError

__all__ = [
    "HolderUnknown",
    "NoSuchTurn",
    "NotConversational",
    "OtherMachine",
    "ThreadBusy",
    "ThreadError",
    "ThreadExists",
    "ThreadIdRefused",
    "ThreadNotFound",
]


@attrs.frozen(kw_only=True)
class ThreadNotFound:
    """No stored thread has this id.

    Example:
        >>> ThreadNotFound(thread_id="t9").describe()
        'no stored thread t9'
    """

    thread_id: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"no stored thread {self.thread_id}"


@attrs.frozen(kw_only=True)
class ThreadExists:
    """A thread of this id is stored already (a new thread needs a new id).

    Example:
        >>> ThreadExists(thread_id="t1").describe()
        'thread t1 exists already'
    """

    thread_id: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"thread {self.thread_id} exists already"


@attrs.frozen(kw_only=True)
class ThreadBusy:
    """The thread's turn ``turn`` has not ended, so it takes no message now: send again, or queue it.

    ``status`` is that turn's (``running``, ``ready``, ``waiting`` for an answer, ``queued``);
    ``run_id`` is its run, to follow, answer or resume.

    Example:
        >>> ThreadBusy(thread_id="t1", turn=3, run_id="r7", status="waiting").describe()
        'thread t1 is busy: turn 3 (run r7) is waiting; send after it ends, or queue the message'
    """

    thread_id: str
    turn: int
    run_id: str
    status: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"thread {self.thread_id} is busy: turn {self.turn} (run {self.run_id}) is {self.status}; "
            "send after it ends, or queue the message"
        )


@attrs.frozen(kw_only=True)
class NoSuchTurn:
    """The thread has no turn ``turn`` (it has ``turns``), or that turn cannot be forked yet.

    Example:
        >>> NoSuchTurn(thread_id="t1", turn=5, turns=2).describe()
        'thread t1 has no turn 5: it has 2 turns'
    """

    thread_id: str
    turn: int
    turns: int
    why: str = ""

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"thread {self.thread_id} has no turn {self.turn}: {self.why or f'it has {self.turns} turns'}"


@attrs.frozen(kw_only=True)
class OtherMachine:
    """The thread's turns are runs of ``machine``; it was asked to go on with ``asked``.

    Example:
        >>> OtherMachine(thread_id="t1", machine="app:A", asked="app:B").describe()
        'thread t1 belongs to app:A, not app:B'
    """

    thread_id: str
    machine: str
    asked: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"thread {self.thread_id} belongs to {self.machine}, not {self.asked}"


@attrs.frozen(kw_only=True)
class NotConversational:
    """The machine declares no turn start, so its runs cannot be a thread's turns.

    Example:
        >>> NotConversational(machine="app:ORDERS").describe()[:46]
        'app:ORDERS declares no turn start (Durable.tur'
    """

    machine: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return (
            f"{self.machine} declares no turn start (Durable.turns): give it one with turn_start, "
            "or a template whose memory starts turns"
        )


@attrs.frozen(kw_only=True)
class ThreadIdRefused:
    """A thread id chosen for a new thread was refused; nothing was stored. It never holds the id.

    Example:
        >>> ThreadIdRefused(why="looks like a credential: choose another id").describe()
        'the thread id looks like a credential: choose another id'
    """

    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"the thread id {self.why}"


@attrs.frozen(kw_only=True)
class HolderUnknown:
    """The agent ``holder`` that holds a thread after a handoff in run ``where`` cannot take its turn.

    Its program cannot be imported by its name, is not of the thread's kind, or its child run
    is not stored.

    Example:
        >>> HolderUnknown(holder="app:REFUNDS", where="r1", why="no child run of it is stored").describe()
        'app:REFUNDS holds the thread after run r1 but cannot take a turn: no child run of it is stored'
    """

    holder: str
    where: str
    why: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"{self.holder} holds the thread after run {self.where} but cannot take a turn: {self.why}"


ThreadError: TypeAlias = (
    DurableError
    | ThreadNotFound
    | ThreadExists
    | ThreadBusy
    | NoSuchTurn
    | OtherMachine
    | NotConversational
    | ThreadIdRefused
    | HolderUnknown
)
"""Every way a thread operation can fail (see the tree in the module docstring)."""
