"""One turn of a thread, step by step: the thread so far, taking the turn, keeping what it leaves.

These are the store-side steps :mod:`agentsm_fn.durable.running.chat` strings together, sync or
async: :func:`thread_for` (the thread, made on first use), ``so_far`` (the thread after a turn:
:mod:`agentsm_fn.durable.running._so_far`), :func:`take` (one conditional write takes the next
turn, its run stored with it, owned by this process; or queues the message) and :func:`run_turn`
(runs it, then keeps the thread so far it leaves). A queued turn's steps are
:mod:`agentsm_fn.durable.running._queued`.
"""

from __future__ import annotations

import enum
import uuid
from typing import Any, Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.running._holder import Held, holder_program, runner_of
from agentsm_fn.durable.running._so_far import keep, so_far, threads_of
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.durable.stores.codec import to_bytes
from agentsm_fn.durable.stores.protocol.owners import this_owner
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStore
from agentsm_fn.durable.stores.protocol.threads import (
    NewThread,
    NewTurn,
    ThreadRecord,
    ThreadStore,
    TurnRecord,
)
from agentsm_fn.durable.thread_errors import (
    NotConversational,
    OtherMachine,
    ThreadBusy,
    ThreadError,
    ThreadIdRefused,
    ThreadNotFound,
)
from agentsm_fn.llm.turns import TurnStart

__all__ = [
    "Begun",
    "StoredThread",
    "stored_thread",
    "held_start",
    "new_run",
    "now_of",
    "run_turn",
    "so_far",
    "take",
    "thread_for",
    "threads_of",
    "turn_runner",
    "turns_of",
]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Program = DurableProgram[StateT, EventT, MemoryT]


def turns_of(program: Program[StateT, EventT, MemoryT]) -> Result[TurnStart[MemoryT], NotConversational]:
    """How ``program`` starts a turn, or why it cannot be a thread's."""
    turns = program.turns
    return Success(turns) if turns is not None else Failure(NotConversational(machine=program.name))


def now_of(program: Program[Any, Any, Any]) -> float:
    return (program.clock or program.shell().clock)()


def thread_for(
    store: ThreadStore, program: Program[StateT, EventT, MemoryT], thread_id: str, create: bool
) -> Result[ThreadRecord, ThreadError]:
    """The thread ``thread_id`` of ``program``'s machine; made first (if ``create``) when not stored."""
    found = store.thread(thread_id)
    if isinstance(found, Failure) and isinstance(found.failure(), ThreadNotFound) and create:
        refused = refused_run_id(thread_id)
        if refused is not None:
            return Failure(ThreadIdRefused(why=refused.why))
        made = store.create_thread(
            NewThread(thread_id=thread_id, machine=program.name, created=now_of(program))
        )
        if isinstance(made, Failure) and isinstance(made.failure(), StoreFailure):
            return made
        found = store.thread(thread_id)  # made here, or by another process meanwhile
    if isinstance(found, Failure):
        return found
    record = found.unwrap()
    if record.machine != program.name:
        return Failure(OtherMachine(thread_id=thread_id, machine=record.machine, asked=program.name))
    return Success(record)


@attrs.frozen(kw_only=True)
class StoredThread(Generic[MemoryT]):
    """A stored thread of a program's machine, with the store that keeps it and how its turns start."""

    store: ThreadStore
    start: TurnStart[MemoryT]
    record: ThreadRecord


def stored_thread(
    store: RunStore, program: Program[StateT, EventT, MemoryT], thread_id: str
) -> Result[StoredThread[MemoryT], ThreadError]:
    """The stored thread ``thread_id`` of ``program``, or why not: what each operation reads first."""
    threads, turns = threads_of(store), turns_of(program)
    if isinstance(threads, Failure):
        return threads
    if isinstance(turns, Failure):
        return turns
    kept = threads.unwrap()
    return thread_for(kept, program, thread_id, create=False).map(
        lambda record: StoredThread(store=kept, start=turns.unwrap(), record=record)
    )


def held_start(
    program: Program[StateT, EventT, MemoryT], held: Held, message: str, where: str
) -> Result[tuple[Program[StateT, EventT, MemoryT], MemoryT], ThreadError]:
    """The program that takes the next turn (the holder of ``held``) and that turn's start memory."""
    found = holder_program(program, held.holder, where)
    if isinstance(found, Failure):
        return found
    runner: Program[StateT, EventT, MemoryT] = found.unwrap()  # of the thread's kind, checked by states
    if runner.turns is None:
        return Failure(NotConversational(machine=runner.name))
    return Success((runner, runner.turns.start(held.thread, message)))


def turn_runner(
    store: RunStore, program: Program[StateT, EventT, MemoryT], begun: Begun[MemoryT]
) -> Result[Program[StateT, EventT, MemoryT], ThreadError]:
    """The program whose run the turn ``begun`` is: the thread's, or the agent that holds the thread."""
    if begun.runner is not None:
        return Success(begun.runner)
    return runner_of(store, program, begun.run_id)


def run_turn(
    store: RunStore, program: Program[StateT, EventT, MemoryT], begun: Begun[MemoryT], inline: bool = True
) -> Result[StoredRun[StateT, MemoryT], ThreadError]:
    """Run a turn whose run this process holds (stored with the turn), on its holder; keep what it leaves.

    Children the run waits on (a handoff's agent) run here too, unless ``inline`` is False.
    """
    runner = turn_runner(store, program, begun)
    if isinstance(runner, Failure):
        return runner
    ran = runner.unwrap()
    if begun.start is not None:
        result = ran.run_taken(store, begun.start, begun.run_id, begun.size, inline=inline)
    else:
        result = ran.resume(store, begun.run_id, inline=inline)
    keep(store, ran, result)
    return result


@attrs.frozen(kw_only=True)
class Begun(Generic[MemoryT]):
    """A turn taken: its number and run id; ``queued`` if its run waits for the turn before it.

    ``start`` is the turn's start memory when this process stored its run (``size``: its bytes),
    so the run goes on from it without reading it back; ``runner`` the program it is a run of
    (the agent that holds the thread; None: read from the stored run).
    """

    thread_id: str
    turn: int
    run_id: str
    queued: bool
    start: MemoryT | None = None
    size: int = 0
    runner: Program[Any, Any, MemoryT] | None = None


def new_run(
    program: Program[StateT, EventT, MemoryT], memory: MemoryT, run_id: str, now: float, parent: str = ""
) -> Result[NewRun, ThreadError]:
    """A turn's run as the turn is taken: its start memory, owned by this process (a fork: of ``parent``)."""
    encoded = to_bytes(memory)
    if isinstance(encoded, Failure):
        return Failure(encoded.failure().within(run_id, "memory"))
    return Success(
        NewRun(
            run_id=run_id,
            machine=program.name,
            fingerprint=program.fingerprint,
            memory=encoded.unwrap(),
            created=now,
            owner=this_owner(),
            lease_until=now + program.lease,
            parent=parent,
            parent_step=0 if parent else -1,
        )
    )


_ATTEMPTS = 10_000
"""How often a queued message tries for a place (each try loses only to a turn another sender took)."""


def take(
    store: ThreadStore,
    program: Program[StateT, EventT, MemoryT],
    turns: TurnStart[MemoryT],
    thread_id: str,
    message: str,
    queue: bool,
    run_id: str | None = None,
) -> Result[Begun[MemoryT], ThreadError]:
    """Take the thread's next turn for ``message``: with its run when the last turn ended, else queued.

    Refused (``ThreadBusy``) when the last turn has not ended or another sender took the turn
    first, unless ``queue``: then the message takes the next place behind it. The turn's run
    is ``run_id`` (a new id if None; one that looks like a credential is refused, as by ``start``).
    """
    if run_id is not None and (refused := refused_run_id(run_id)) is not None:
        return Failure(refused)
    for _ in range(_ATTEMPTS):
        found = thread_for(store, program, thread_id, create=True)
        if isinstance(found, Failure):
            return found
        record = found.unwrap()
        last = record.last
        turn = NewTurn(
            thread_id=thread_id,
            turn=record.turns,
            run_id=run_id or uuid.uuid4().hex,
            message=message,
            created=now_of(program),
        )
        run, start, runner = None, None, None
        if last is None or last.status.ended:
            thread = so_far(store, program, turns, last)
            if isinstance(thread, Failure):
                return thread
            began = held_start(program, thread.unwrap(), message, "" if last is None else last.run_id)
            if isinstance(began, Failure):
                return began
            runner, start = began.unwrap()
            made = new_run(runner, start, turn.run_id, turn.created)
            if isinstance(made, Failure):
                return made
            run = made.unwrap()
        elif not queue:
            return Failure(_busy(last))
        taken = store.take_turn(turn, run)
        if isinstance(taken, Success):
            size = 0 if run is None else len(run.memory)
            begun = Begun(
                thread_id=thread_id,
                turn=turn.turn,
                run_id=turn.run_id,
                queued=run is None,
                start=start,
                size=size,
                runner=runner,
            )
            return Success(begun)
        if not (queue and isinstance(taken.failure(), ThreadBusy)):
            return Failure(taken.failure())
    return Failure(StoreFailure(operation="take turn", detail=f"no place after {_ATTEMPTS} tries"))


def _busy(turn: TurnRecord) -> ThreadBusy:
    return ThreadBusy(thread_id=turn.thread_id, turn=turn.turn, run_id=turn.run_id, status=turn.status.value)
