"""A run observer that hands what a run does to the AG-UI stream, as it happens, on the server's loop.

The endpoint gives each run it starts or resumes a :class:`Feed` (added to the run's
shell observer, next to any the application has). Its watch puts a :data:`Happening`
on an :class:`asyncio.Queue` for every transition and the memory after it (the
observer protocol's optional ``memory_after``), every effect started and ended (with
the effect and its outcome as values: an LLM reply's text and tool calls, a tool's
result), every delta a streaming provider reports to the effect it performs (its text and
tool-call argument fragments, as they are decoded) and the run's end.

The queue is bounded the way a run stream's is, by the same mechanism
(:class:`agentsm_fn.shell._stream_buffer.Buffer`, and the run stream's gated performers):
the run waits for room before each effect it performs, so a slow client slows the run
down and the feed holds at most ``capacity`` items plus what one stretch of pure steps
between two effects (and the deltas of one LLM call, merged past capacity: text to text,
fragments of one tool call) adds. Items may be put from worker threads (performers, tools
of a batch); the buffer keeps their order. Once the client left (the stream is closed) the
feed is abandoned: the run goes on without waiting for room, and nothing more is kept.
"""

from __future__ import annotations

import enum
from typing import Final, TypeAlias

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch
from agentsm_fn.providers.events import TextDelta, ToolCallArguments
from agentsm_fn.shell._stream_buffer import Buffer
from agentsm_fn.shell.observers import Both
from agentsm_fn.shell.run import Shell
from agentsm_fn.shell.streaming import buffered_shell
from agentsm_fn.stream.children import ChildEvent

__all__ = [
    "FEED_SIZE",
    "ChildStepped",
    "EffectEnded",
    "EffectStarted",
    "Feed",
    "Happening",
    "MemoryAfter",
    "Moved",
    "RunStopped",
    "Streamed",
    "observed",
    "watched",
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
class ChildStepped:
    """A child run of the run did something (its event, as the store shows it)."""

    event: ChildEvent


@attrs.frozen
class RunStopped:
    """The run stopped: finished, waiting, or failed (``end.reason``)."""

    end: RunEnd


Happening: TypeAlias = (
    Moved | MemoryAfter | EffectStarted | EffectEnded | Streamed | ChildStepped | RunStopped
)
"""Anything a :class:`Feed` reports."""

FEED_SIZE: Final = 256
"""Items a feed holds before its run waits for the client (the default ``capacity``)."""


def _merged(last: Happening, happening: Happening) -> Happening | None:
    """Two deltas of the LLM call in progress as one: text to text, fragments of one tool call."""
    if type(last) is not Streamed or type(happening) is not Streamed:
        return None
    before, after = last.delta, happening.delta
    if type(before) is TextDelta and type(after) is TextDelta:
        return Streamed(TextDelta(before.text + after.text))
    if type(before) is ToolCallArguments and type(after) is ToolCallArguments and before.index == after.index:
        return Streamed(ToolCallArguments(before.index, before.fragment + after.fragment))
    return None


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
    """Watches the runs of one request and buffers what they do for its stream (bounded: see the module).

    Example:
        >>> import asyncio
        >>> async def first() -> list[Happening]:
        ...     feed = Feed()
        ...     feed.put(Moved("Idle", "Planning"))
        ...     return await feed.buffer.take()
        >>> asyncio.run(first())
        [Moved(state='Idle', target='Planning')]
    """

    def __init__(self, capacity: int = FEED_SIZE) -> None:
        self.buffer: Buffer[Happening] = Buffer(capacity, _merged)

    def put(self, happening: Happening) -> None:
        """Add ``happening`` (from any thread), unless the feed is closed."""
        self.buffer.put(happening)

    def close(self) -> None:
        """Nobody reads the feed any more (the client left): keep nothing, never make the run wait.

        Example:
            >>> feed = Feed()
            >>> feed.close()
            >>> feed.put(Moved("Idle", "Planning"))
            >>> feed.buffer.behind()
            0
        """
        self.buffer.abandon()

    def run_started(self, start: RunStart) -> RunWatch | None:
        """A watch for every run of the request's shell."""
        return _Run(self)


def observed(shell: Shell, feed: Feed) -> Shell:
    """``shell`` with ``feed`` told about its runs too (beside its own observer), its performers gated.

    Each performer waits for room in the feed before it performs (under ``arun``).

    Example:
        >>> feed = Feed()
        >>> observed(Shell(), feed).observer is feed
        True
    """
    return buffered_shell(shell, feed, feed.buffer)


def watched(shell: Shell, feed: Feed) -> Shell:
    """``shell`` with ``feed`` told about its runs too, its performers not gated (a run not on the loop).

    A run performed on a worker thread (a thread's fork) cannot wait on the loop for room, so
    its feed is not bounded: it holds what the client has not read yet.

    Example:
        >>> feed = Feed()
        >>> watched(Shell(), feed).observer is feed
        True
    """
    mine: RunObserver = feed if shell.observer is None else Both(shell.observer, feed)
    return Shell(shell.performers, shell.clock, mine)
