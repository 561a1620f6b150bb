"""The shell's side of observers: call a run's watch at each lifecycle point.

``run``/``arun``/``resume_run`` ask the shell's observer for a watch when a run
starts (:func:`start_watching`). With one, the run's performers are wrapped so the
watch sees each effect start and end with its duration, and the fold reports each
transition as it is recorded. Without an observer (or when it declines a run) none of
this exists: the run takes the unobserved path.

A performer that runs parts of its effect itself (the tool runner's parallel batch)
reports each part with :func:`perform_part` / :func:`aperform_part`; outside an
observed run they just call the function.

Observers must not break runs: an exception from a watch is logged (logger
``agentsm_fn.shell.observing``) and otherwise ignored.

One idea over 300 lines: the shell's calls into a run's watch, at every lifecycle point;
split, the effect and transition reports of one watch would live apart.
"""

from __future__ import annotations

import contextvars
import enum
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Final, ParamSpec, TypeVar, cast

from returns.result import Failure, Result

from agentsm_fn.core.driver import SUSPEND, OnMemory, OnRow
from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.journal import digest_summary
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.timeouts import TimedPerformer, Watched

__all__ = ["Watching", "aperform_part", "perform_part", "report_delta", "start_watching"]

T = TypeVar("T")
P = ParamSpec("P")
StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
_log: Final = logging.getLogger(__name__)

_CURRENT: Final[contextvars.ContextVar[tuple[RunWatch, EffectWatch] | None]] = contextvars.ContextVar(
    "agentsm_fn_effect_watch", default=None
)
"""The watch of the run, and of the effect, being performed here (copied into tool threads)."""


class _Ignored:
    """The effect watch used when a watch's ``effect_started`` raised: it watches nothing."""

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """Nothing to do."""

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """Nothing to do."""


_IGNORED: Final = _Ignored()
_now: Final = time.perf_counter


def _complain(what: str) -> None:
    _log.exception("an observer raised in %s; the run goes on unobserved there", what)


def _started(watch: RunWatch, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
    try:
        return watch.effect_started(effect, within)
    except Exception:
        _complain("effect_started")
        return _IGNORED


def _ended(effect_watch: EffectWatch, outcome: object, since: float) -> None:
    try:
        effect_watch.effect_ended(outcome, time.perf_counter() - since)
    except Exception:
        _complain("effect_ended")


def _raised(effect_watch: EffectWatch, error: BaseException, since: float) -> None:
    try:
        effect_watch.effect_raised(error, time.perf_counter() - since)
    except Exception:
        _complain("effect_raised")


async def _ending_when_awaited(
    awaitable: Awaitable[object], effect_watch: EffectWatch, since: float
) -> object:
    """An awaitable a sync performer returned: the effect ends when it has been awaited."""
    try:
        outcome = await awaitable
    except BaseException as exc:
        _raised(effect_watch, exc, since)
        raise
    _ended(effect_watch, outcome, since)
    return outcome


def _reported(
    watch: RunWatch, effect: Effect[object], within: EffectWatch | None, call: Callable[[Effect[object]], T]
) -> tuple[T, EffectWatch, float]:
    """``call(effect)`` as the current effect of ``watch``: its outcome, its effect watch, its start.

    A raise is reported here; the caller reports the outcome once it is final.
    """
    effect_watch = _started(watch, effect, within)
    token = _CURRENT.set((watch, effect_watch))
    since = time.perf_counter()
    try:
        return call(effect), effect_watch, since
    except BaseException as exc:
        _raised(effect_watch, exc, since)
        raise
    finally:
        _CURRENT.reset(token)


async def _areported(
    watch: RunWatch,
    effect: Effect[object],
    within: EffectWatch | None,
    call: Callable[[Effect[object]], Awaitable[T]],
) -> T:
    """``await call(effect)`` as the current effect of ``watch``, its end or raise reported."""
    effect_watch = _started(watch, effect, within)
    token = _CURRENT.set((watch, effect_watch))
    since = _now()
    try:
        outcome = await call(effect)
    except BaseException as exc:
        _raised(effect_watch, exc, since)
        raise
    finally:
        _CURRENT.reset(token)
    _ended(effect_watch, outcome, since)
    return outcome


def _watched(watch: RunWatch, performer: Performer, within: EffectWatch | None = None) -> Performer:
    started = watch.effect_started

    def perform(effect: Effect[object]) -> object:
        # _reported and _ended written out: this runs for every effect of every observed run
        try:
            effect_watch = started(effect, within)
        except Exception:
            _complain("effect_started")
            effect_watch = _IGNORED
        token = _CURRENT.set((watch, effect_watch))
        since = _now()
        try:
            outcome = performer(effect)
        except BaseException as exc:
            _raised(effect_watch, exc, since)
            raise
        finally:
            _CURRENT.reset(token)
        if getattr(type(outcome), "__await__", None) is not None and outcome is not SUSPEND:
            return _ending_when_awaited(cast(Awaitable[object], outcome), effect_watch, since)
        try:
            effect_watch.effect_ended(outcome, _now() - since)
        except Exception:
            _complain("effect_ended")
        return outcome

    return perform


def _watched_sync(watch: RunWatch, performer: Performer) -> Performer:
    """:func:`_watched`, keeping a timed performer timed (``arun`` waits for it off the loop).

    The watch wraps the whole timed call, so an effect that timed out ends with the
    ``EffectFailure(TIMED_OUT)`` the fold gets (the abandoned thread is not watched).
    """
    if type(performer) is TimedPerformer:
        wrap = Watched(
            sync=lambda fn: _watched(watch, fn),
            asynchronous=lambda fn: _watched_async(watch, fn),
        )
        return TimedPerformer(performer.fn, performer.seconds, wrap)
    return _watched(watch, performer)


def _watched_async(watch: RunWatch, performer: AsyncPerformer) -> AsyncPerformer:
    async def perform(effect: Effect[object]) -> object:
        return await _areported(watch, effect, None, performer)

    return perform


def perform_part(part: Effect[object], fn: Callable[[], T]) -> T:
    """Call ``fn``, reported to the run's observer as ``part`` of the effect being performed.

    Outside an observed run this is ``fn()``.

    Example:
        >>> from agentsm_fn.core.effects import Effect
        >>> perform_part(Effect(), lambda: 42)
        42
    """
    current = _CURRENT.get()
    if current is None:
        return fn()
    watch, within = current
    outcome, effect_watch, since = _reported(watch, part, within, lambda _part: fn())
    _ended(effect_watch, outcome, since)
    return outcome


def report_delta(delta: object) -> None:
    """Tell the effect being performed here that a streaming provider produced ``delta``.

    A provider calls it for each decoded stream event (text, a tool call's start or
    argument fragment); an observer whose effect watch has a ``streamed`` method gets it,
    attributed to its own run (the effect being performed is a context variable, so
    concurrent runs on one loop never mix). Outside an observed effect it does nothing.

    Example:
        >>> report_delta("Hel")  # no observed effect here: nothing happens
    """
    current = _CURRENT.get()
    if current is None:
        return
    streamed = getattr(current[1], "streamed", None)
    if streamed is None:
        return
    try:
        streamed(delta)
    except Exception:
        _complain("streamed")


async def aperform_part(part: Effect[object], fn: Callable[[], Awaitable[T]]) -> T:
    """Await ``fn()``, reported as ``part`` of the effect being performed (see :func:`perform_part`).

    Example:
        >>> import asyncio
        >>> async def answer() -> int:
        ...     return 42
        >>> asyncio.run(aperform_part(Effect(), answer))
        42
    """
    current = _CURRENT.get()
    if current is None:
        return await fn()
    watch, within = current
    return await _areported(watch, part, within, lambda _part: fn())


def _contained(callback: Callable[P, None], what: str) -> Callable[P, None]:
    """A watch's ``callback`` (its method ``what``), a raise logged and the run going on."""

    def contained(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            callback(*args, **kwargs)
        except Exception:
            _complain(what)

    return contained


class Watching:
    """One observed run: its watch, the fold's row callback and the wrapped performers.

    Made by :func:`start_watching`; ``run``/``arun``/``resume_run`` use it. A watch with a
    ``row(row)`` method gets each trace row as the fold records it, as it is (``(step,
    state, event, target, data, at)``, ``target`` None for an effect request whose
    ``event`` is the effect's digest), instead of ``transition`` and ``effect_requested``
    calls: a watch that turns every row into something pays no translation.
    """

    __slots__ = ("on_memory", "on_row", "requested", "watch")

    def __init__(self, watch: RunWatch) -> None:
        self.watch = watch
        self.requested: Callable[[int, enum.Enum, str, str, float], None] | None = getattr(
            watch, "effect_requested", None
        )
        after: OnMemory | None = getattr(watch, "memory_after", None)
        self.on_memory: OnMemory | None = None if after is None else _contained(after, "memory_after")
        """The fold's memory callback: None (the fold unchanged) unless the watch has ``memory_after``."""
        row: OnRow | None = getattr(watch, "row", None)
        self.on_row: OnRow = self._reported if row is None else _contained(row, "row")
        """The fold's row callback: report each row it records (to ``row``, or translated)."""

    def _reported(self, row: tuple[int, object, object, object, object, float]) -> None:
        """The fold recorded ``row``: report it (an effect request only to a watch that asks for them)."""
        step, state, event, target, _data, at = row
        if target is None:  # an effect request: the wrapped performer reports performing it
            if self.requested is not None:
                kind, summary = digest_summary(event)
                try:
                    self.requested(step, cast(enum.Enum, state), kind, summary, at)
                except Exception:
                    _complain("effect_requested")
            return
        try:
            self.watch.transition(
                step, cast(enum.Enum, state), cast(enum.Enum, event), cast(enum.Enum, target), at
            )
        except Exception:
            _complain("transition")

    def rows(self, rows: object) -> None:
        """Report ``rows`` (trace rows a pure step recorded outside the fold)."""
        on_row = self.on_row
        for row in cast(list[tuple[int, object, object, object, object, float]], rows):
            on_row(row)

    def resumed(self, before: Snapshot[StateT, MemoryT], after: Snapshot[StateT, MemoryT]) -> None:
        """Report what a pure resume of ``before`` recorded: its rows, and the memory after a transition."""
        self.rows(after.trace.rows[len(before.trace) :])
        if self.on_memory is not None and after.steps != before.steps:
            self.on_memory(after.steps, after.memory)

    def performers(self, performers: Performers) -> Performers:
        """``performers`` with every performer reporting to this run's watch."""
        watch = self.watch
        sync = {kind: _watched_sync(watch, fn) for kind, fn in performers.sync.items()}
        asynchronous = {kind: _watched_async(watch, fn) for kind, fn in performers.asynchronous.items()}
        return Performers(sync, asynchronous)  # it makes read-only copies

    def ended(self, result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]) -> None:
        """Report how the run stopped."""
        if isinstance(result, Failure):
            failed = result.failure()
            end = RunEnd(snapshot=cast(Snapshot[enum.Enum, object], failed.snapshot), reason=failed.reason)
        else:
            end = RunEnd(snapshot=cast(Snapshot[enum.Enum, object], result.unwrap()), reason=None)
        try:
            self.watch.run_ended(end)
        except Exception:
            _complain("run_ended")


_new_tuple: Final = tuple.__new__


def start_watching(
    observer: RunObserver,
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    resumed: bool = False,
) -> Watching | None:
    """Ask ``observer`` for a watch of a run of ``machine`` from ``start`` (a memory or snapshot).

    Example:
        >>> from agentsm_fn.core.machine import define_machine
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.A}, table={}, handlers={})
        >>> class Nobody:
        ...     def run_started(self, start: RunStart) -> None:
        ...         return None
        >>> start_watching(Nobody(), m, 0) is None
        True
    """
    # RunStart's fields in order, built as the tuple it is (its keyword __new__ costs more than a
    # declining observer should: "tracing installed but disabled" must stay free)
    fields: tuple[object, ...]
    if isinstance(start, Snapshot):
        fields = (machine, start.state, start.memory, start.steps, resumed or start.steps > 0, start)
    else:
        fields = (machine, machine.initial, start, 0, resumed, None)
    begin: RunStart = _new_tuple(RunStart, fields)
    try:
        watch = observer.run_started(begin)
    except Exception:
        _complain("run_started")
        return None
    return None if watch is None else Watching(watch)
