"""Performer timeouts: a performer that runs past its limit delivers ``EffectFailure(TIMED_OUT)``.

``Performers.on(kind, fn, timeout=seconds)`` and ``Performers.on_async(kind, fn,
timeout=seconds)`` register performers wrapped by this module. What is enforced:

* an async performer (under ``arun``) is cancelled when its time is up;
* a sync performer with a timeout runs in a daemon thread (with a copy of the caller's
  ``contextvars`` context, so :func:`~agentsm_fn.shell.keys.effect_key` works in it):
  ``run`` waits for it at most ``seconds``, ``arun`` awaits it without blocking the
  loop. Python cannot stop a thread, so a sync performer that times out runs on in
  its thread and its result is discarded: give a sync performer its own timeout on
  the IO it does (a socket timeout) when it must really stop.

Only an expired limit is a timeout: a performer that raises ``TimeoutError`` itself
has raised (``EffectFailure(RAISED)``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.shell._threads import in_daemon_thread

__all__ = ["TimedPerformer", "Watched", "timed_async"]


def _check(seconds: float) -> float:
    if not seconds > 0:
        raise ValueError(f"a performer timeout must be a positive number of seconds, not {seconds!r}")
    return float(seconds)


class TimedPerformer:
    """A sync performer with a time limit: called, it runs ``fn`` in a daemon thread and waits.

    ``watched`` (set by an observed run) wraps the whole timed call, sync and awaited
    alike, so an observer sees the ``EffectFailure(TIMED_OUT)`` the caller gets.

    Example:
        >>> import time
        >>> slow = TimedPerformer(lambda effect: time.sleep(5), 0.01)
        >>> slow(Effect()).kind.name
        'TIMED_OUT'
        >>> TimedPerformer(lambda effect: "fast", 5.0)(Effect())
        'fast'
    """

    __slots__ = ("fn", "seconds", "watched")

    def __init__(
        self,
        fn: Callable[[Effect[object]], object],
        seconds: float,
        watched: Watched | None = None,
    ) -> None:
        self.fn = fn
        self.seconds = _check(seconds)
        self.watched = watched

    def __call__(self, effect: Effect[object]) -> object:
        if self.watched is not None:
            return self.watched.sync(self._timed)(effect)
        return self._timed(effect)

    def _timed(self, effect: Effect[object]) -> object:
        future = in_daemon_thread(lambda: self.fn(effect), name="agentsm-performer")
        try:
            return future.result(timeout=self.seconds)
        except concurrent.futures.TimeoutError:  # also the performer's own TimeoutError (the same class)
            if future.done():
                return future.result()  # it finished: its outcome, or its own exception raised again
            return EffectFailure.timed_out(describe_effect(effect), self.seconds)

    async def in_loop(self, effect: Effect[object]) -> object:
        """The same, awaited under asyncio: the thread runs while the loop goes on."""
        if self.watched is not None:
            return await self.watched.asynchronous(self._in_loop)(effect)
        return await self._in_loop(effect)

    async def _in_loop(self, effect: Effect[object]) -> object:
        return await _within(
            asyncio.wrap_future(in_daemon_thread(lambda: self.fn(effect))), effect, self.seconds
        )

    def bound(self, target: Effect[object]) -> TimedPerformer:
        """The same limit, performing ``target`` whatever it is called with (for wrapper effects)."""
        fn = self.fn
        return TimedPerformer(lambda _wrapper: fn(target), self.seconds, self.watched)


class Watched(NamedTuple):
    """How an observed run wraps a timed performer's whole call (sync, and awaited under ``arun``)."""

    sync: Callable[[Callable[[Effect[object]], object]], Callable[[Effect[object]], object]]
    asynchronous: Callable[
        [Callable[[Effect[object]], Awaitable[object]]], Callable[[Effect[object]], Awaitable[object]]
    ]


async def _within(work: Awaitable[object], effect: Effect[object], seconds: float) -> object:
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await work
    except TimeoutError:
        if scope.expired():
            return EffectFailure.timed_out(describe_effect(effect), seconds)
        raise  # the performer's own TimeoutError: it raised


def timed_async(
    fn: Callable[[Effect[object]], Awaitable[object]], seconds: float
) -> Callable[[Effect[object]], Awaitable[object]]:
    """An async performer that delivers ``EffectFailure(TIMED_OUT)`` if ``fn`` runs past ``seconds``.

    Example:
        >>> import asyncio
        >>> async def never(effect: Effect[object]) -> object:
        ...     await asyncio.sleep(10)
        >>> asyncio.run(timed_async(never, 0.01)(Effect())).detail
        'no outcome within 0.01s'
    """
    limit = _check(seconds)

    async def timed(effect: Effect[object]) -> object:
        return await _within(fn(effect), effect, limit)

    return timed
