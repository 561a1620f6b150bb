"""A run observer that hands what a run does to the AG-UI stream, as it happens, on the server's loop.

The endpoint gives each run it starts or resumes a :class:`Feed` (added to the run's
shell observer, next to any the application has). Its watch puts a :data:`Happening`
on an :class:`asyncio.Queue` for every transition and the memory after it (the
observer protocol's optional ``memory_after``), every effect started and ended (with
the effect and its outcome as values: an LLM reply's text and tool calls, a tool's
result), every delta a streaming provider reports to the effect it performs (its text and
tool-call argument fragments, as they are decoded) and the run's end. Performers may run
on worker threads, so items are put with ``call_soon_threadsafe``, which keeps their order.
The queue is unbounded: a run puts a few items per step and a few per streamed delta, and
the stream's reader takes them as fast as the client reads. Once the client left (the
stream is closed) the run goes on, and the feed queues nothing more.
"""

from __future__ import annotations

import asyncio
import enum
from typing import TypeAlias

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.run import Shell

__all__ = [
    "EffectEnded",
    "EffectStarted",
    "Feed",
    "Happening",
    "MemoryAfter",
    "Moved",
    "RunStopped",
    "Streamed",
    "observed",
]


@attrs.frozen
class Moved:
    """The run moved from ``state`` to ``target`` (state names)."""

    state: str
    target: str


@attrs.frozen
class MemoryAfter:
    """After transition ``step`` the run holds ``memory`` (a frozen value: read on the loop, later)."""

    step: int
    memory: object


@attrs.frozen
class EffectStarted:
    """A performer is about to perform ``effect``."""

    effect: Effect[object]


@attrs.frozen
class EffectEnded:
    """``effect`` ended with ``outcome`` (``SUSPEND`` when the run now waits for it)."""

    effect: Effect[object]
    outcome: object


@attrs.frozen
class Streamed:
    """A streaming provider decoded ``delta`` (a provider ``StreamEvent``) of the LLM call in progress."""

    delta: object


@attrs.frozen
class RunStopped:
    """The run stopped: finished, waiting, or failed (``end.reason``)."""

    end: RunEnd


Happening: TypeAlias = Moved | MemoryAfter | EffectStarted | EffectEnded | Streamed | RunStopped
"""Anything a :class:`Feed` reports."""


class _Effect:
    __slots__ = ("effect", "feed")

    def __init__(self, feed: Feed, effect: Effect[object]) -> None:
        self.feed, self.effect = feed, effect

    def effect_ended(self, outcome: object, seconds: float) -> None:
        self.feed.put(EffectEnded(self.effect, outcome))

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """A raising performer becomes a failure outcome the run reports when it routes it."""

    def streamed(self, delta: object) -> None:
        """A streaming provider's delta for this effect (the observer protocol's optional method)."""
        self.feed.put(Streamed(delta))


class _Run:
    __slots__ = ("feed",)

    def __init__(self, feed: Feed) -> None:
        self.feed = feed

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        self.feed.put(Moved(state.name, target.name))

    def memory_after(self, step: int, memory: object) -> None:
        """The observer protocol's optional method: the memory after each transition."""
        self.feed.put(MemoryAfter(step, memory))

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        self.feed.put(EffectStarted(effect))
        return _Effect(self.feed, effect)

    def run_ended(self, end: RunEnd) -> None:
        self.feed.put(RunStopped(end))


class Feed:
    """Watches the runs of one request and queues what they do for its stream.

    Example:
        >>> import asyncio
        >>> async def first() -> Happening:
        ...     feed = Feed(asyncio.get_running_loop())
        ...     feed.put(Moved("Idle", "Planning"))
        ...     return await feed.queue.get()
        >>> asyncio.run(first())
        Moved(state='Idle', target='Planning')
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.queue: asyncio.Queue[Happening] = asyncio.Queue()
        self.closed = False

    def put(self, happening: Happening) -> None:
        """Queue ``happening`` on the feed's loop (from any thread), unless the feed is closed."""
        if not self.closed:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, happening)

    def close(self) -> None:
        """Nobody reads the queue any more (the client left): queue nothing from now on.

        Example:
            >>> async def after_close() -> int:
            ...     feed = Feed(asyncio.get_running_loop())
            ...     feed.close()
            ...     feed.put(Moved("Idle", "Planning"))
            ...     await asyncio.sleep(0)
            ...     return feed.queue.qsize()
            >>> asyncio.run(after_close())
            0
        """
        self.closed = True

    def run_started(self, start: RunStart) -> RunWatch | None:
        """A watch for every run of the request's shell."""
        return _Run(self)


def observed(shell: Shell, observer: RunObserver) -> Shell:
    """``shell`` with ``observer`` told about its runs too (next to the shell's own observer).

    Example:
        >>> import asyncio
        >>> loop = asyncio.new_event_loop()
        >>> feed = Feed(loop)
        >>> observed(Shell(), feed).observer is feed
        True
        >>> loop.close()
    """
    mine = observer if shell.observer is None else Both(shell.observer, observer)
    return attrs.evolve(shell, observer=mine)
