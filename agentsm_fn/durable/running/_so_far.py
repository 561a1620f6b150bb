"""The thread so far after a turn: kept when the turn ends, known to the process that ran it, read back.

:func:`keep` stores it when a turn's run ends (finished or failed); :func:`so_far` gives it for
the next turn: known in this process (it ran that turn, or read it lately), else one stored
value, else (a turn ended by ``recover``, which knows nothing of threads) one replay of that
turn's run, then kept. With it comes who holds the conversation after that turn
(:mod:`agentsm_fn.durable.running._holder`): the agent a handoff gave it to, whose own
conversation is then the thread so far.
"""

from __future__ import annotations

import enum
import threading
from typing import TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import Stopped, StoreFailure
from agentsm_fn.durable.running._holder import Held, held_after, runner_of
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.running.replay import replayed
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.durable.stores.protocol.threads import ThreadStore, TurnRecord
from agentsm_fn.durable.thread_errors import ThreadError
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.turns import TurnStart

__all__ = ["forget_known", "keep", "so_far", "threads_of"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Program = DurableProgram[StateT, EventT, MemoryT]


def threads_of(store: RunStore) -> Result[ThreadStore, StoreFailure]:
    """``store`` as a thread store (both stores are), or why it is not one."""
    if isinstance(store, ThreadStore):
        return Success(store)
    return Failure(StoreFailure(operation="threads", detail=f"{type(store).__name__} keeps no threads"))


def so_far(
    store: ThreadStore,
    program: Program[StateT, EventT, MemoryT],
    turns: TurnStart[MemoryT],
    turn: TurnRecord | None,
) -> Result[Held, ThreadError]:
    """The thread after ``turn`` (None: before the first) and its holder: kept, or one replay (then kept)."""
    if turn is None:
        return Success(Held(holder=program.name, thread=Conversation()))
    known = _KNOWN.get(turn.run_id)
    if known is not None:
        return Success(known)
    kept = store.so_far(turn.thread_id, turn.turn)
    if isinstance(kept, Failure):
        return kept
    data = kept.unwrap()
    if data is not None:
        decoded = from_bytes(data, Conversation)
        if isinstance(decoded, Failure):
            return Failure(decoded.failure().within(turn.run_id, f"thread_turns[{turn.turn}].so_far"))
        held = Held(holder=turn.holder or program.name, thread=decoded.unwrap())
        _know(turn.run_id, held)
        return Success(held)
    runner = runner_of(store, program, turn.run_id)  # its process did not keep it (recover ended it)
    if isinstance(runner, Failure):
        return runner
    replay = replayed(store, runner.unwrap().machine, turn.run_id)
    if isinstance(replay, Failure):
        return replay
    after = held_after(store, runner.unwrap(), turn.run_id, replay.unwrap()[0].memory)
    if isinstance(after, Failure):
        return after
    _keep_value(store, turn.run_id, after.unwrap(), runner.unwrap().name)
    return after


_KNOWN: dict[str, Held] = {}
"""The thread so far after the turns this process ended or read lately, by run id (at most :data:`_KNOWING`).

The value a turn's run leaves is a pure function of that run's final memory, so it never
changes: a process that ran turn N starts turn N + 1 without reading it back or decoding it.
Another process reads the stored value (one read, one decode)."""

_KNOWING = 256


_KNOWING_LOCK = threading.Lock()


def _know(run_id: str, thread: Held) -> None:
    with _KNOWING_LOCK:
        if len(_KNOWN) >= _KNOWING:
            del _KNOWN[next(iter(_KNOWN))]  # the oldest (dicts keep their order)
        _KNOWN[run_id] = thread


def forget_known() -> None:
    """Forget every thread so far this process knows (as a process that ran none of the turns)."""
    with _KNOWING_LOCK:
        _KNOWN.clear()


def _keep_value(store: ThreadStore, run_id: str, held: Held, runner: str) -> None:
    """Know and keep ``held`` after run ``run_id`` of program ``runner`` (its holder if another agent)."""
    _know(run_id, held)
    encoded = to_bytes(held.thread)
    holder = "" if held.holder == runner else held.holder
    if isinstance(encoded, Success):  # else the next turn replays this one again: slower, never wrong
        store.keep_so_far(run_id, encoded.unwrap(), holder)


def keep(
    store: RunStore,
    program: Program[StateT, EventT, MemoryT],
    result: Result[StoredRun[StateT, MemoryT], ThreadError],
) -> None:
    """Keep the thread so far after a turn whose run ended (finished or failed) with ``result``.

    A turn that waits for an answer, or whose store failed, keeps nothing (not ended, or not known);
    nor does one whose holder cannot be found (the next turn finds it again, or says why not).
    """
    threads = threads_of(store)
    if program.turns is None or isinstance(threads, Failure):
        return
    if isinstance(result, Success) and result.unwrap().finished:
        run_id, memory = result.unwrap().run_id, result.unwrap().snapshot.memory
    elif isinstance(result, Failure) and isinstance(result.failure(), Stopped):
        stopped = result.failure()
        assert isinstance(stopped, Stopped)
        run_id, memory = stopped.run_id, stopped.failed.snapshot.memory
    else:
        return
    held = held_after(store, program, run_id, memory)
    if isinstance(held, Success):
        _keep_value(threads.unwrap(), run_id, held.unwrap(), program.name)
