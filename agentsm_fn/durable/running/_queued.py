"""A queued turn: it waits for the turn before it to end, then its run is stored and run.

A message sent with ``queue=True`` while the thread's last turn has not ended takes the next
turn at once (its place is decided), without a run. :func:`look` is one look at it: the turn
before it has not ended (WAIT), or it has and this process stored the queued turn's run (RUN),
or another process did first (FOLLOW: :func:`ended` says how that run went, once it stopped).
"""

from __future__ import annotations

import enum
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import Stopped
from agentsm_fn.durable.running._holder import runner_of
from agentsm_fn.durable.running._turns import Begun, held_start, new_run, now_of, so_far
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.running.replay import replayed
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadStore, TurnStatus
from agentsm_fn.durable.thread_errors import ThreadError, ThreadNotFound
from agentsm_fn.llm.turns import TurnStart

__all__ = ["Look", "ended", "look"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Program = DurableProgram[StateT, EventT, MemoryT]


class Look(enum.Enum):
    """What a queued turn does after one look at the thread."""

    WAIT = "wait"
    """The turn before it has not ended."""
    RUN = "run"
    """Its run is stored now, owned by this process: run it."""
    FOLLOW = "follow"
    """Another process started it (``advance``): follow it to its end."""


def look(
    store: ThreadStore,
    program: Program[StateT, EventT, MemoryT],
    turns: TurnStart[MemoryT],
    begun: Begun[MemoryT],
) -> Result[Look, ThreadError]:
    """One look at queued turn ``begun``: start its run here if the turn before it ended."""
    found = store.turns(begun.thread_id, begun.turn - 1, 2)
    if isinstance(found, Failure):
        return found
    rows = {row.turn: row for row in found.unwrap()}
    mine, before = rows.get(begun.turn), rows.get(begun.turn - 1)
    if mine is None or before is None:  # the thread was deleted meanwhile
        return Failure(ThreadNotFound(thread_id=begun.thread_id))
    if mine.status is not TurnStatus.QUEUED:
        return Success(Look.FOLLOW)
    if not before.status.ended:
        return Success(Look.WAIT)
    thread = so_far(store, program, turns, before)
    if isinstance(thread, Failure):
        return thread
    began = held_start(program, thread.unwrap(), mine.message, before.run_id)
    if isinstance(began, Failure):
        return began
    runner, start = began.unwrap()
    made = new_run(runner, start, mine.run_id, now_of(program))
    if isinstance(made, Failure):
        return made
    started = store.start_queued(begun.thread_id, begun.turn, made.unwrap())
    if isinstance(started, Failure):
        return started
    return Success(Look.RUN if started.unwrap() else Look.FOLLOW)


def ended(
    store: RunStore, program: Program[StateT, EventT, MemoryT], run_id: str
) -> Result[StoredRun[StateT, MemoryT], ThreadError] | None:
    """How a turn run by another process went, once it stopped (None while it runs): by replay."""
    record = store.get(run_id)
    if isinstance(record, Failure):
        return record
    if record.unwrap().status in (RunStatus.RUNNING, RunStatus.READY):
        return None
    runner = runner_of(store, program, run_id)  # the agent that held the thread, or the thread's own
    if isinstance(runner, Failure):
        return runner
    replay = replayed(store, runner.unwrap().machine, run_id)
    if isinstance(replay, Failure):
        return replay
    snapshot, failed = replay.unwrap()
    if failed is not None and record.unwrap().status is RunStatus.FAILED:
        return Failure(Stopped(run_id=run_id, failed=failed))
    return Success(StoredRun(run_id=run_id, snapshot=snapshot))
