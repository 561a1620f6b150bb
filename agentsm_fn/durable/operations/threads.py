"""What is done to stored threads: fork one at a turn with an edited message, run queued turns left behind.

:func:`fork_thread` is "edit and run again from here": a new thread that holds the turns
before turn N of the original (the same runs) and, as its turn N, a fork of the original
turn N's run whose start memory is the machine's turn start of the thread so far and the
edited message; it runs that turn here, on the agent that held the thread before turn N (after
a handoff, not the thread's own). The original thread is left as it was.

:func:`advance_thread` runs the queued turns whose senders went away (a sender that queued a message
waits for the turn before it and runs its own turn; one that died leaves it queued).
Listing, reading and deleting threads are the store's own methods
(:class:`~agentsm_fn.durable.stores.protocol.threads.ThreadStore`).
"""

from __future__ import annotations

import enum
import uuid
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.running import _so_far, _turns
from agentsm_fn.durable.running._queued import Look, look
from agentsm_fn.durable.running._turns import Begun
from agentsm_fn.durable.running.chat import Turn
from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import NewThread, NewTurn, TurnStatus
from agentsm_fn.durable.thread_errors import NoSuchTurn, ThreadError, ThreadIdRefused
from agentsm_fn.llm.conversation import Conversation

__all__ = ["advance_thread", "conversation_after", "fork_thread"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def conversation_after(
    program: DurableProgram[StateT, EventT, MemoryT], store: RunStore, thread_id: str, turn: int | None = None
) -> Result[Conversation, ThreadError]:
    """The thread so far after turn ``turn`` (default: its last ended turn): what the next turn starts from.

    The earlier turns' messages as the providers' message types (a summary for compressed ones),
    read as a turn's start reads them: one stored value, or one replay of that turn's run.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = DurableProgram(name="app:AGENT", machine=REACT_MACHINE, template=AgentMemory.new(""))
        >>> conversation_after(agent, store, "t1").failure().describe()
        'no stored thread t1'
        >>> store.close()
    """
    found = _turns.stored_thread(store, program, thread_id)
    if isinstance(found, Failure):
        return found
    stored = found.unwrap()
    kept, start, record = stored.store, stored.start, stored.record
    if turn is not None and not 0 <= turn < record.turns:
        return Failure(NoSuchTurn(thread_id=thread_id, turn=turn, turns=record.turns))
    last = record.last
    if turn is None and (last is None or last.status.ended):  # the common case: one read, no list
        return _so_far.so_far(kept, program, start, last).map(lambda held: held.thread)
    rows = kept.turns(thread_id, 0 if turn is None else turn, None if turn is None else 1)
    if isinstance(rows, Failure):
        return rows
    ended = [row for row in rows.unwrap() if row.status.ended]
    if turn is not None and not ended:
        why = f"turn {turn} has not ended"
        return Failure(NoSuchTurn(thread_id=thread_id, turn=turn, turns=record.turns, why=why))
    return _so_far.so_far(kept, program, start, ended[-1] if ended else None).map(lambda held: held.thread)


def fork_thread(
    program: DurableProgram[StateT, EventT, MemoryT],
    store: RunStore,
    thread_id: str,
    turn: int,
    message: str,
    new_thread_id: str | None = None,
    run_id: str | None = None,
    inline: bool = True,
) -> Result[Turn[StateT, MemoryT], ThreadError]:
    """Fork thread ``thread_id`` at turn ``turn`` with ``message`` instead of that turn's, and run it here.

    The new thread (``new_thread_id``, or a new id) holds the turns before ``turn`` and a
    fork of turn ``turn``'s run (its record names that run as its parent, at step 0), whose
    id is ``run_id`` (default: a new id). Children its run waits on run here too, unless ``inline`` is False.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = DurableProgram(name="app:AGENT", machine=REACT_MACHINE, template=AgentMemory.new(""))
        >>> fork_thread(agent, store, "t1", 0, "Hello?").failure().describe()
        'no stored thread t1'
        >>> store.close()
    """
    found = _turns.stored_thread(store, program, thread_id)
    if isinstance(found, Failure):
        return found
    stored = found.unwrap()
    kept, start, record = stored.store, stored.start, stored.record
    rows = kept.turns(thread_id, max(turn - 1, 0), 2)
    if isinstance(rows, Failure):
        return rows
    at = {row.turn: row for row in rows.unwrap()}
    source, before = at.get(turn), at.get(turn - 1)
    if source is None or turn < 0:
        return Failure(NoSuchTurn(thread_id=thread_id, turn=turn, turns=record.turns))
    if before is not None and not before.status.ended:
        why = f"turn {turn - 1} has not ended, so the thread before turn {turn} is not known yet"
        return Failure(NoSuchTurn(thread_id=thread_id, turn=turn, turns=record.turns, why=why))
    fork_id = new_thread_id or uuid.uuid4().hex
    refused = refused_run_id(fork_id)
    if refused is not None:
        return Failure(ThreadIdRefused(why=refused.why))
    if run_id is not None and (named := refused_run_id(run_id)) is not None:
        return Failure(named)
    thread = _so_far.so_far(kept, program, start, before)
    if isinstance(thread, Failure):
        return thread
    began = _turns.held_start(program, thread.unwrap(), message, source.run_id)  # the holder as of then
    if isinstance(began, Failure):
        return began
    (runner, memory), run_id = began.unwrap(), run_id or uuid.uuid4().hex
    made = _turns.new_run(runner, memory, run_id, _turns.now_of(program), parent=source.run_id)
    if isinstance(made, Failure):
        return made
    run = made.unwrap()
    new = NewThread(
        thread_id=fork_id,
        machine=program.name,
        created=run.created,
        title=record.title,
        parent=thread_id,
        parent_turn=turn,
    )
    step = NewTurn(thread_id=fork_id, turn=turn, run_id=run_id, message=message, created=run.created)
    forked = kept.fork_thread(new, step, run)
    if isinstance(forked, Failure):
        return forked
    begun = Begun(
        thread_id=fork_id,
        turn=turn,
        run_id=run_id,
        queued=False,
        start=memory,
        size=len(run.memory),
        runner=runner,
    )
    result = _turns.run_turn(store, program, begun, inline)
    if isinstance(result, Failure):
        return Failure(result.failure())
    return Success(Turn(thread_id=fork_id, turn=turn, run=result.unwrap()))


def advance_thread(
    program: DurableProgram[StateT, EventT, MemoryT], store: RunStore, thread_id: str
) -> Result[tuple[Turn[StateT, MemoryT], ...], ThreadError]:
    """Run the thread's queued turns whose senders went away, in order, here; the turns it ran.

    It stops at a turn that does not end (it waits for an answer), or that its sender (or
    another ``advance_thread``) started first.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = DurableProgram(name="app:AGENT", machine=REACT_MACHINE, template=AgentMemory.new(""))
        >>> advance_thread(agent, store, "t1").failure().describe()
        'no stored thread t1'
        >>> store.close()
    """
    found = _turns.stored_thread(store, program, thread_id)
    if isinstance(found, Failure):
        return found
    stored = found.unwrap()
    kept, start = stored.store, stored.start
    listed = kept.turns(thread_id)
    if isinstance(listed, Failure):
        return listed
    done: list[Turn[StateT, MemoryT]] = []
    for row in listed.unwrap():
        if row.status is not TurnStatus.QUEUED:
            continue
        begun: Begun[MemoryT] = Begun(thread_id=thread_id, turn=row.turn, run_id=row.run_id, queued=True)
        looked = look(kept, program, start, begun)
        if isinstance(looked, Failure):
            return looked
        if looked.unwrap() is not Look.RUN:
            break
        result = _turns.run_turn(store, program, begun)
        if isinstance(result, Failure):
            return Failure(result.failure())
        done.append(Turn(thread_id=thread_id, turn=row.turn, run=result.unwrap()))
        if not result.unwrap().finished:
            break
    return Success(tuple(done))
