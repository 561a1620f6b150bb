"""A run as an async stream of its events: :func:`astream` (and :func:`stream`, its sync twin).

The run goes on in its own task under ``arun``, with an observer
(:mod:`agentsm_fn.shell._stream_watch`) that puts each event on a bounded buffer
(:mod:`agentsm_fn.shell._stream_buffer`) the caller iterates; the events are the frozen
values of :mod:`agentsm_fn.stream`. The shell's own observer, if it has one, is told
too. The run waits for room in the buffer before each effect it performs (its performers
are *gated*), so a slow consumer slows the run down instead of letting events pile up;
text and tool-call argument deltas are merged when the consumer is behind, nothing else
is. Leaving the loop early (``break``, an exception, ``aclose``) cancels the run's task,
exactly as cancelling a task running ``arun`` does. A shell without a stream pays nothing.
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
import os
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterator
from typing import Final, TypeVar

from returns.result import Result, Success

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import EffectFailed, RunFailed
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell._stream_buffer import Buffer, EventBuffer
from agentsm_fn.shell._stream_watch import StreamWatch
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.run import RunResult, Shell, arun
from agentsm_fn.shell.stream_history import history_length, standing_events
from agentsm_fn.shell.timeouts import TimedPerformer
from agentsm_fn.stream.events import RunEvent, RunStarted

__all__ = ["BUFFER_SIZE", "astream", "stream"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
T = TypeVar("T")

BUFFER_SIZE: Final = 256
"""Events a stream buffers before its run waits for the consumer (the default ``buffer``)."""


async def _after_room(
    buffer: Buffer[T], fn: Performer, effect: Effect[object], context: contextvars.Context
) -> object:
    await buffer.room()
    outcome = context.run(fn, effect)  # as called: the effect it performs is the observed one
    if isinstance(outcome, Awaitable):  # a sync performer's awaitable, awaited as arun awaits it
        return await outcome
    return outcome


def _gated_sync(buffer: Buffer[T], fn: Performer) -> Performer:
    def perform(effect: Effect[object]) -> object:
        if buffer.full():  # an awaitable: arun awaits it, and the loop lets the consumer catch up
            return _after_room(buffer, fn, effect, contextvars.copy_context())
        return fn(effect)

    return perform


def _gated_async(buffer: Buffer[T], fn: AsyncPerformer) -> AsyncPerformer:
    async def perform(effect: Effect[object]) -> object:
        await buffer.room()
        return await fn(effect)

    return perform


def gated(performers: Performers, buffer: Buffer[T]) -> Performers:
    """``performers``, each waiting for room in ``buffer`` before it performs (a timed one under arun).

    Any :class:`Buffer` gates a run: the run stream's, and the AG-UI endpoint's feed.
    """
    sync: dict[type, Performer] = {}
    asynchronous: dict[type, AsyncPerformer] = {
        kind: _gated_async(buffer, fn) for kind, fn in performers.asynchronous.items()
    }
    for kind, fn in performers.sync.items():
        if type(fn) is TimedPerformer:  # arun awaits it in a thread: gate that await
            sync[kind] = fn
            asynchronous.setdefault(kind, _gated_async(buffer, fn.in_loop))
        else:
            sync[kind] = _gated_sync(buffer, fn)
    return Performers(sync, asynchronous)  # it makes read-only copies


def buffered_shell(shell: Shell, observer: RunObserver, buffer: Buffer[T]) -> Shell:
    """``shell`` with ``observer`` beside its own, its performers waiting for room in ``buffer``.

    What a run whose events go to a bounded buffer runs in: a run stream's, an AG-UI feed's.
    """
    mine: RunObserver = observer if shell.observer is None else Both(shell.observer, observer)
    return Shell(gated(shell.performers, buffer), shell.clock, mine)


def streamed_shell(shell: Shell, watch: StreamWatch) -> Shell:
    """``shell`` for a streamed run: gated performers, and the watch beside the shell's own observer."""
    return buffered_shell(shell, watch, watch.buffer)


def stopped_at_effect(result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]) -> bool:
    """True if the run failed on an effect's failure it had no route for (awaiting that effect)."""
    if isinstance(result, Success):
        return False
    failed = result.failure()
    return isinstance(failed.reason, EffectFailed) and failed.snapshot.awaiting


_UUID4_CLEAR: Final = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET: Final = (0x8000 << 48) | (4 << 76)


def new_run_id() -> str:
    """A fresh run id: a random (version 4) UUID's hex, as ``uuid.uuid4().hex`` (without the UUID object).

    Example:
        >>> import uuid
        >>> uuid.UUID(new_run_id()).version
        4
    """
    bits = int.from_bytes(os.urandom(16), "big") & _UUID4_CLEAR | _UUID4_SET
    return f"{bits:032x}"


def astream(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
    *,
    run_id: str | None = None,
    buffer: int = BUFFER_SIZE,
    result: Callable[[RunResult[StateT, MemoryT]], object] | None = None,
) -> AsyncGenerator[RunEvent, None]:
    """Run ``machine`` from ``start`` (a memory or a snapshot) as :func:`arun` does, yielding its events.

    The first event is :class:`~agentsm_fn.stream.RunStarted` (with ``run_id``, or a new
    one), the last ``Finished``, ``Failed`` or ``AwaitingOutcome``, whose ``result`` is
    what ``arun`` returns (or ``result`` of it: a facade's own value).

    Example:
        >>> from agentsm_fn.core.compose import choose
        >>> from agentsm_fn.core.handlers import pure
        >>> from agentsm_fn.core.machine import define_machine
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(name="m", states=S, events=E, initial=S.A, terminals={S.B},
        ...                    table={(S.A, E.GO): S.B}, handlers={S.A: choose(otherwise=E.GO)})
        >>> async def names() -> list[str]:
        ...     return [type(event).__name__ async for event in astream(m, 0)]
        >>> asyncio.run(names())
        ['RunStarted', 'Transitioned', 'Finished']
    """
    shell = shell or Shell()
    run_id = run_id or new_run_id()
    events = EventBuffer(buffer)
    snapshot = start if isinstance(start, Snapshot) else None
    position = 1 if snapshot is None else history_length(snapshot)
    # a snapshot's history so far is the caller's already
    watch = StreamWatch(run_id, events, position, emitted=position - 1)
    events.put(
        RunStarted(
            run_id=run_id,
            machine=machine.name,
            fingerprint=machine_fingerprint(machine),
            state=(machine.initial if snapshot is None else snapshot.state).name,
            steps=0 if snapshot is None else snapshot.steps,
            resumed=snapshot is not None and snapshot.steps > 0,
        )
    )

    async def run() -> tuple[RunEvent, ...]:
        done = await arun(machine, start, streamed_shell(shell, watch))
        watch.settle(stopped_at_effect(done))
        carried = done if result is None else result(done)
        return standing_events(run_id, watch.next, done, carried, redact_credentials, watch.held)

    return events.events(run)


def stream(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
    *,
    run_id: str | None = None,
    buffer: int = BUFFER_SIZE,
    result: Callable[[RunResult[StateT, MemoryT]], object] | None = None,
) -> Iterator[RunEvent]:
    """:func:`astream` for synchronous code: the run goes on in this thread's own event loop.

    Between two events nothing runs (the loop runs only inside ``next``), so a slow
    consumer holds the run; leaving the loop early cancels it. Call it where no event
    loop is running (as ``asyncio.run``).

    Example:
        >>> from agentsm_fn.core.machine import define_machine
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.A}, table={}, handlers={})
        >>> [type(event).__name__ for event in stream(m, 0)]
        ['RunStarted', 'Finished']
    """
    return iterate(lambda: astream(machine, start, shell, run_id=run_id, buffer=buffer, result=result))


async def _next(iterator: AsyncIterator[RunEvent]) -> RunEvent:
    return await anext(iterator)


def iterate(events: Callable[[], AsyncIterator[RunEvent]]) -> Iterator[RunEvent]:
    """The async iterator ``events()`` makes, iterated on a private event loop (see :func:`stream`)."""
    with asyncio.Runner() as runner:
        iterator = events()
        try:
            while True:
                try:
                    yield runner.run(_next(iterator))
                except StopAsyncIteration:
                    return
        finally:
            aclose = getattr(iterator, "aclose", None)
            if aclose is not None:
                runner.run(aclose())
