"""One call per turn: send a message to a thread, sync, async or as a stream, and get the turn's result.

``Durable.chat(store, thread_id, message)`` takes the thread's next turn (one conditional write
in the store decides its number), stores its run with the start memory the machine's declared
turn start makes of the thread so far and the message, runs it, keeps the thread so far after
it, and returns the :class:`Turn`. ``achat`` is the same on asyncio, ``astream_chat`` the turn's
run as a stream of its events (:meth:`Durable.astream`).

A message sent while the thread's last turn has not ended (it runs, here or in another process,
or waits for an answer) is refused with :class:`~agentsm_fn.durable.thread_errors.ThreadBusy`,
naming that turn; with ``queue=True`` it takes the next place at once, and the call waits until
the turn before it ended, then runs it (looking at the store every ``poll`` seconds). A queued
turn whose sender went away is run by :func:`~agentsm_fn.durable.operations.threads.advance_thread`.
"""

from __future__ import annotations

import asyncio
import enum
import time
from collections.abc import AsyncGenerator
from typing import Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.running import _so_far, _turns
from agentsm_fn.durable.running._holder import runner_of
from agentsm_fn.durable.running._queued import Look, ended, look
from agentsm_fn.durable.running._turns import Begun
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.running.streaming import astream_durable
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadStore
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.llm.turns import TurnStart
from agentsm_fn.stream.events import Failed, RunEvent

__all__ = ["POLL", "Turn", "achat", "astream_chat", "chat", "keep_turn", "turn_program"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Program = DurableProgram[StateT, EventT, MemoryT]

POLL = 0.05
"""How long a queued message waits between two looks at the thread, in seconds."""


@attrs.frozen(kw_only=True)
class Turn(Generic[StateT, MemoryT]):
    """A turn a message made: its thread, its number, and where its run stopped.

    ``run.snapshot`` is the turn's end (its memory holds the answer), or where it waits for
    an answer (an approval): the thread then takes no message until it is answered and run on.
    """

    thread_id: str
    turn: int
    run: StoredRun[StateT, MemoryT]

    @property
    def run_id(self) -> str:
        """The id of the turn's run."""
        return self.run.run_id

    @property
    def finished(self) -> bool:
        """True once the turn's run reached a terminal state."""
        return self.run.finished


def _ready(
    store: RunStore, program: Program[StateT, EventT, MemoryT]
) -> Result[tuple[ThreadStore, TurnStart[MemoryT]], ThreadError]:
    threads = _turns.threads_of(store)
    if isinstance(threads, Failure):
        return threads
    turns = _turns.turns_of(program)
    if isinstance(turns, Failure):
        return turns
    return Success((threads.unwrap(), turns.unwrap()))


def _turn(
    begun: Begun[MemoryT], result: Result[StoredRun[StateT, MemoryT], ThreadError]
) -> Result[Turn[StateT, MemoryT], ThreadError]:
    if isinstance(result, Failure):
        return Failure(result.failure())
    return Success(Turn(thread_id=begun.thread_id, turn=begun.turn, run=result.unwrap()))


def _waited(
    store: ThreadStore,
    program: Program[StateT, EventT, MemoryT],
    turns: TurnStart[MemoryT],
    begun: Begun[MemoryT],
    poll: float,
) -> Result[Look, ThreadError]:
    """Look until a queued turn may run here, or runs elsewhere."""
    while True:
        looked = look(store, program, turns, begun)
        if isinstance(looked, Failure) or looked.unwrap() is not Look.WAIT:
            return looked
        time.sleep(poll)


def chat(
    program: Program[StateT, EventT, MemoryT],
    store: RunStore,
    thread_id: str,
    message: str,
    *,
    queue: bool = False,
    poll: float = POLL,
    run_id: str | None = None,
) -> Result[Turn[StateT, MemoryT], ThreadError]:
    """Send ``message`` to thread ``thread_id`` (made on first use), run its turn here: ``Durable.chat``."""
    ready = _ready(store, program)
    if isinstance(ready, Failure):
        return ready
    threads, turns = ready.unwrap()
    begun = _turns.take(threads, program, turns, thread_id, message, queue, run_id)
    if isinstance(begun, Failure):
        return begun
    took = begun.unwrap()
    if took.queued:
        looked = _waited(threads, program, turns, took, poll)
        if isinstance(looked, Failure):
            return looked
        if looked.unwrap() is Look.FOLLOW:
            return _turn(took, _followed(store, program, took.run_id, poll))
    return _turn(took, _turns.run_turn(store, program, took))


def _followed(
    store: RunStore, program: Program[StateT, EventT, MemoryT], run_id: str, poll: float
) -> Result[StoredRun[StateT, MemoryT], ThreadError]:
    while True:
        done = ended(store, program, run_id)
        if done is not None:
            return done
        time.sleep(poll)


async def achat(
    program: Program[StateT, EventT, MemoryT],
    store: RunStore,
    thread_id: str,
    message: str,
    *,
    queue: bool = False,
    poll: float = POLL,
    run_id: str | None = None,
    inline: bool = True,
) -> Result[Turn[StateT, MemoryT], ThreadError]:
    """:func:`chat` on asyncio: the store's reads and writes in a thread, the turn's run on the loop.

    Children the turn's run waits on (a handoff's agent) run here too, unless ``inline`` is False
    (the AG-UI server runs them itself, to stream their steps).
    """
    begun = await _abegin(store, program, thread_id, message, queue, poll, run_id)
    if isinstance(begun, Failure):
        return begun
    took, look = begun.unwrap()
    if look is Look.FOLLOW:
        while (done := await asyncio.to_thread(ended, store, program, took.run_id)) is None:
            await asyncio.sleep(poll)
        return _turn(took, done)
    runner = await asyncio.to_thread(_turns.turn_runner, store, program, took)
    if isinstance(runner, Failure):
        return runner
    ran = runner.unwrap()
    if took.start is not None:
        result = await ran.arun_taken(store, took.start, took.run_id, took.size, inline=inline)
    else:
        result = await ran.aresume(store, took.run_id, inline=inline)
    await asyncio.to_thread(_so_far.keep, store, ran, result)
    return _turn(took, result)


async def _abegin(
    store: RunStore,
    program: Program[StateT, EventT, MemoryT],
    thread_id: str,
    message: str,
    queue: bool,
    poll: float,
    run_id: str | None = None,
) -> Result[tuple[Begun[MemoryT], Look], ThreadError]:
    """Take the turn (in a thread); a queued one waits on the loop until it may run, here or elsewhere."""
    ready = _ready(store, program)
    if isinstance(ready, Failure):
        return ready
    threads, turns = ready.unwrap()
    begun = await asyncio.to_thread(_turns.take, threads, program, turns, thread_id, message, queue, run_id)
    if isinstance(begun, Failure):
        return begun
    took = begun.unwrap()
    if not took.queued:
        return Success((took, Look.RUN))
    while True:
        looked = await asyncio.to_thread(look, threads, program, turns, took)
        if isinstance(looked, Failure):
            return looked
        if looked.unwrap() is not Look.WAIT:
            return Success((took, looked.unwrap()))
        await asyncio.sleep(poll)


async def astream_chat(
    program: Program[StateT, EventT, MemoryT],
    store: RunStore,
    thread_id: str,
    message: str,
    *,
    queue: bool = False,
    poll: float = POLL,
    buffer: int,
    run_id: str | None = None,
) -> AsyncGenerator[RunEvent, None]:
    """:func:`achat` as a stream: the turn's run's events (``Durable.astream``), its result on the last one.

    A refused message is one ``Failed`` event (no run): its ``reason`` names the error's class
    (``ThreadBusy``), its ``result`` is the failure.
    """
    begun = await _abegin(store, program, thread_id, message, queue, poll, run_id)
    if isinstance(begun, Success):
        runner = await asyncio.to_thread(_turns.turn_runner, store, program, begun.unwrap()[0])
        begun = begun if isinstance(runner, Success) else Failure(runner.failure())
    if isinstance(begun, Failure):
        error = begun.failure()
        state = program.machine.initial.name
        yield Failed(
            run_id="",
            position=0,
            state=state,
            steps=0,
            reason=type(error).__name__,
            detail=error.describe(),
            result=begun,
        )
        return
    took, _ = begun.unwrap()
    ran = runner.unwrap()
    last: RunEvent | None = None
    async for event in astream_durable(ran, store, None, took.run_id, -1, buffer):
        last = event
        yield event
    result = getattr(last, "result", None)
    if isinstance(result, Success | Failure):
        await asyncio.to_thread(_so_far.keep, store, ran, result)


def turn_program(
    store: RunStore, program: Program[StateT, EventT, MemoryT], run_id: str
) -> Result[Program[StateT, EventT, MemoryT], ThreadError]:
    """The program whose run a turn of ``program``'s thread is: it, or the agent that held the thread.

    One who runs a turn on (its children, after ``achat(..., inline=False)``) runs it with this.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = DurableProgram(name="app:A", machine=REACT_MACHINE)
        >>> turn_program(store, agent, "r1").failure().describe()
        'no stored run r1'
        >>> store.close()
    """
    return runner_of(store, program, run_id)


def keep_turn(
    store: RunStore,
    program: Program[StateT, EventT, MemoryT],
    result: Result[StoredRun[StateT, MemoryT], ThreadError],
) -> None:
    """Keep the thread so far (and its holder) after a turn of ``program`` that ended elsewhere than ``chat``.

    A turn whose children ran after ``achat(..., inline=False)`` ends there; keeping what it
    leaves then shows its holder at once (else the next turn works it out). A turn that has not
    ended (it waits), or whose store failed, keeps nothing.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable import RunNotFound, SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> agent = DurableProgram(name="app:A", machine=REACT_MACHINE)
        >>> keep_turn(store, agent, Failure(RunNotFound(run_id="r1")))  # not ended: nothing kept
        >>> store.close()
    """
    _so_far.keep(store, program, result)
