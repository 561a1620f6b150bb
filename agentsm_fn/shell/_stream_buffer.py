"""The bounded buffer between a streamed run and its consumer (backpressure, delta merging).

The run puts events from its observer (on the loop, or from a tool's or a timed
performer's thread); the consumer takes them on the loop. Nothing is ever dropped.
Past ``capacity`` a delta is merged into the delta before it when both belong to the
same effect (text to text, fragments of one tool call), so a fast provider and a slow
consumer keep the buffer at its size; every other event is kept. The run waits for
room before each effect it performs (:meth:`EventBuffer.room`, awaited by the gated
performers of :mod:`agentsm_fn.shell.streaming`), so the buffer holds at most
``capacity`` events plus what one stretch of pure transitions between two effects adds.

:class:`Buffer` is that mechanism for items of any type, merged by a function it is given
(or never); :class:`EventBuffer` is the run stream's, over :data:`RunEvent` with the
merging above. The AG-UI endpoint's feed is a :class:`Buffer` too: it takes batches with
:meth:`Buffer.take`, and when its client leaves it calls :meth:`Buffer.abandon`: the run
then goes on without waiting, and nothing more is kept.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Generic, TypeVar

import attrs

from agentsm_fn.stream.events import LlmTextDelta, RunEvent, ToolCallArgsDelta

__all__ = ["Buffer", "EventBuffer"]

T = TypeVar("T")


def _merged(last: RunEvent, event: RunEvent) -> RunEvent | None:
    """``last`` and ``event`` as one delta, if both are deltas of one effect that merge."""
    if type(last) is LlmTextDelta and type(event) is LlmTextDelta and last.position == event.position:
        return attrs.evolve(last, text=last.text + event.text)
    if (
        type(last) is ToolCallArgsDelta
        and type(event) is ToolCallArgsDelta
        and (last.position, last.index, last.call_id) == (event.position, event.index, event.call_id)
    ):
        return attrs.evolve(last, fragment=last.fragment + event.fragment)
    return None


class Buffer(Generic[T]):
    """Items from a run to its consumer, in order; bounded as the module says.

    ``merge(last, item)``, if given, is tried past capacity: the one item they make, or None.

    Example:
        >>> async def nothing_more() -> tuple[RunEvent, ...]:
        ...     return ()
        >>> async def demo() -> list[str]:
        ...     buffer = EventBuffer(capacity=2)
        ...     for text in ("a", "b", "c"):
        ...         buffer.put(LlmTextDelta(run_id="r", position=1, text=text))
        ...     return [event.text async for event in buffer.events(nothing_more)]
        >>> asyncio.run(demo())
        ['a', 'bc']
    """

    def __init__(self, capacity: int, merge: Callable[[T, T], T | None] | None = None) -> None:
        if capacity < 1:
            raise ValueError(f"a stream's buffer holds at least one event, not {capacity}")
        self.capacity = capacity
        self._merge = merge
        self.waited = 0.0
        """Seconds the run has waited for room (taken out of its effects' durations)."""
        self._items: deque[T] = deque()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None  # the consumer's, once it waits
        self._thread = 0
        self._ready: asyncio.Future[None] | None = None
        self._room: asyncio.Future[None] | None = None
        self._closed = False
        self._error: BaseException | None = None
        self._in_hand = 0
        self._abandoned = False

    def put(self, event: T) -> None:
        """Add ``event`` (from any thread); past capacity it may merge into the one before."""
        with self._lock:
            if self._abandoned:
                return
            items = self._items
            merge = self._merge
            merged = merge(items[-1], event) if merge is not None and len(items) >= self.capacity else None
            if merged is None:
                items.append(event)
            else:
                items[-1] = merged
            waiter, self._ready = self._ready, None
        if waiter is not None:
            self._wake(waiter)

    def close(self, error: BaseException | None = None) -> None:
        """No more events; the consumer gets those buffered, then ``error`` is raised (if any)."""
        with self._lock:
            self._closed, self._error = True, error
            waiter, self._ready = self._ready, None
        if waiter is not None:
            self._wake(waiter)

    def full(self) -> bool:
        """True while the consumer is ``capacity`` events or more behind."""
        return len(self._items) + self._in_hand >= self.capacity

    def behind(self) -> int:
        """How many events the consumer is behind: buffered, and taken but not yet handed out."""
        return len(self._items) + self._in_hand

    def abandon(self) -> None:
        """The consumer left: drop what is buffered, keep nothing more, let the run go on without waiting."""
        with self._lock:
            self._abandoned = True
            self._items.clear()
            self._in_hand = 0
            room, self._room = self._room, None
        if room is not None:
            self._wake(room)

    async def take(self) -> list[T]:
        """The next events in order, once some have arrived; ``[]`` once the buffer is closed and empty.

        The events of the batch taken before count as behind until this is called again.
        """
        if self._in_hand:
            self._in_hand = 0
            room, self._room = self._room, None
            if room is not None:
                _set(room)
        while True:
            with self._lock:
                batch, closed = list(self._items), self._closed
                self._items.clear()
                self._in_hand = len(batch)
                if not batch and not closed:
                    waiter = self._ready = self._bound().create_future()
            if batch or closed:
                return batch
            await waiter

    async def room(self) -> None:
        """Wait (on the loop) until the consumer is less than ``capacity`` events behind."""
        if not self.full():
            return
        since = time.perf_counter()
        while self.full() and not self._closed:
            waiter = self._room = self._bound().create_future()
            await waiter
        self.waited += time.perf_counter() - since

    async def events(self, run: Callable[[], Awaitable[tuple[T, ...]]]) -> AsyncGenerator[T, None]:
        """Start ``run()`` in its own task; yield what is put here, then what it returns.

        The consumer takes what has arrived in one go (:meth:`take`) and hands it out one
        by one; the events it holds still count as behind until it asks for more. Leaving
        early cancels the task (and waits for it to end); an exception of the run is raised
        here after the events put before it.
        """
        task = asyncio.ensure_future(self._running(run))
        try:
            while True:
                batch = await self.take()
                if not batch:
                    if self._error is not None:
                        raise self._error
                    return
                for event in batch:
                    yield event
        finally:
            if task.done():  # its outcome went into the buffer (a BaseException re-raised: taken here)
                if not task.cancelled():
                    task.exception()
            else:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def _running(self, run: Callable[[], Awaitable[tuple[T, ...]]]) -> None:
        try:
            for event in await run():
                self.put(event)
        except BaseException as exc:  # the consumer gets it after the events before it
            self.close(exc)
            if not isinstance(exc, Exception):
                raise
        else:
            self.close()

    def _bound(self) -> asyncio.AbstractEventLoop:
        """The loop the consumer and the run wait on (the running one: they wait only there)."""
        if self._loop is None:
            self._loop, self._thread = asyncio.get_running_loop(), threading.get_ident()
        return self._loop

    def _wake(self, waiter: asyncio.Future[None]) -> None:
        if threading.get_ident() == self._thread:
            _set(waiter)
        else:  # a waiter exists, so the loop is known
            waiter.get_loop().call_soon_threadsafe(_set, waiter)


class EventBuffer(Buffer[RunEvent]):
    """The run stream's buffer: run events, text and tool-call argument deltas merged past capacity.

    Example:
        >>> EventBuffer(capacity=4).capacity
        4
    """

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity, _merged)


def _set(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
