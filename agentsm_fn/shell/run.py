"""Running a machine: the thin shell that performs effects between pure steps.

:func:`run` and :func:`arun` drive the engine's pure fold (``core.driver.drive``):
each effect the machine yields is performed by the registered performer and its
outcome (journaled by the fold before any handler sees it) is sent back. A
performer that returns ``SUSPEND`` pauses the run: the result is an AWAITING
snapshot, a value you can store and later finish with :func:`resume_run`.

A performer that raises delivers ``EffectFailure(RAISED, "<ExcType>: <message>")``
as the effect's outcome (credentials redacted: :mod:`agentsm_fn.shell.credentials`),
and one that runs past its registered timeout ``EffectFailure(TIMED_OUT)``; the
machine decides what that means (its ``receive``, its state's ``failure_event``, or,
with neither, ``EffectFailed`` and the awaiting snapshot, so nothing is lost and the
run can be resumed once the cause is fixed).
A missing performer is a configuration error, not an effect failure: the run ends
with ``EffectFailed`` and the awaiting snapshot.

A shell with an ``observer`` (:mod:`agentsm_fn.core.observe`) reports each run's
start, transitions, effects (with their durations) and end to it; see
:mod:`agentsm_fn.shell.observing`. Without one a run takes exactly the path it
always took.

One idea over 300 lines: running a machine through the shell, sync and async, with the
inline performers both loops hand the fold.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Generator
from typing import Final, NamedTuple, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.driver import DEFER, SUSPEND, OnMemory, OnRow, drive, drive_from
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.core.engine import resume
from agentsm_fn.core.failures import EffectFailed, RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.observe import RunObserver
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell.clock import Clock, system_clock
from agentsm_fn.shell.credentials import raised_failure, redact_credentials
from agentsm_fn.shell.observing import Watching, start_watching
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.timeouts import TimedPerformer

__all__ = ["Shell", "aresume_run", "arun", "resume_run", "run"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


class _AwaitWith(NamedTuple):
    """_Inline's note to ``arun``: await ``performer`` for the yielded effect."""

    performer: AsyncPerformer


_PLAIN_UNDERLYING: Final = Effect.underlying
_PLAIN_OUTCOMES: Final[set[type]] = {str, int, float, bool, bytes, type(None), tuple, list, dict, frozenset}
"""Outcome types seen not to be awaitable (nor SUSPEND): returned by inline performers at once."""

RunResult = Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]


@attrs.frozen
class Shell:
    """The IO a run may use: effect performers, a clock, and an optional observer.

    Example:
        >>> Shell().performers.sync, Shell().observer
        (mappingproxy({}), None)
    """

    performers: Performers = attrs.field(factory=Performers)
    clock: Clock = system_clock
    observer: RunObserver | None = None

    def _watched(self, watching: Watching) -> Shell:
        """This shell for one observed run: performers that report to it, no observer of its own."""
        return Shell(watching.performers(self.performers), self.clock, None)


def _park(
    fold: Generator[Effect[object], object, RunResult[StateT, MemoryT]],
    effect: Effect[object],
    problem: str | None,
) -> RunResult[StateT, MemoryT]:
    """Stop the fold at ``effect``: suspended if ``problem`` is None, else EffectFailed."""
    try:
        fold.send(SUSPEND)
    except StopIteration as stop:
        parked: RunResult[StateT, MemoryT] = stop.value
    else:  # pragma: no cover - drive always stops after SUSPEND
        raise AssertionError("drive did not stop after SUSPEND")
    if problem is None or not isinstance(parked, Success):
        return parked
    snapshot = parked.unwrap()
    return Failure(RunFailed(EffectFailed(snapshot.state, describe_effect(effect), problem), snapshot))


class _Inline:
    """The shell's sync performers, called by the fold itself (no generator round trip).

    A performer that raises gives ``EffectFailure(RAISED)`` as the outcome. Anything
    else but a plain outcome is handed back with :data:`DEFER`, leaving a note in
    ``problem`` that says what the shell must do with the yielded effect: park it
    (no performer, suspended) or, under ``arun``, await it. The fold is given
    the bound method :meth:`perform` (a cheaper call than an instance's ``__call__``).
    """

    __slots__ = ("asynchronous", "found", "performers", "problem")

    def __init__(self, performers: Performers, asynchronous: bool) -> None:
        self.performers = performers
        self.asynchronous = asynchronous
        # shared by every run of these performers: see Performers._run_cache
        self.found = performers._arun_cache if asynchronous else performers._run_cache
        self.problem: object = None

    def perform(self, effect: Effect[object]) -> object:
        performer = self.found.get(type(effect))
        if performer is None:
            performer = self._look_up(effect)
            if performer is None:  # ``problem`` says what the shell must do instead
                return DEFER
        try:
            outcome = performer(effect)
        except Exception as exc:  # the effect failed: an outcome the machine routes
            return raised_failure(effect, exc)
        if type(outcome) in _PLAIN_OUTCOMES:
            return outcome
        return self._unusual(outcome)

    def _unusual(self, outcome: object) -> object:
        """An outcome of a type not seen yet, SUSPEND, or an awaitable."""
        if outcome is SUSPEND:
            self.problem = SUSPEND
            return DEFER
        if getattr(type(outcome), "__await__", None) is None:  # cheaper than inspect.isawaitable
            _PLAIN_OUTCOMES.add(type(outcome))
            return outcome
        if self.asynchronous:
            self.problem = outcome
            return DEFER
        close = getattr(outcome, "close", None)
        if callable(close):
            close()
        self.problem = "performer returned an awaitable; use arun"
        return DEFER

    def _look_up(self, effect: Effect[object]) -> Performer | None:
        """The sync performer for ``effect``, or None with ``problem`` set (await one, or none found).

        Lookups are cached in the :class:`Performers` when they depend on the effect's
        type alone; a wrapper's (an embedded machine's ``Nested``) is bound to the
        effect it carries, so it is looked up each time.
        """
        kind = type(effect)
        plain = kind.underlying is _PLAIN_UNDERLYING
        if self.asynchronous:  # under arun an async performer wins
            found_async = self.performers._async_cache.get(kind) if plain else None
            if found_async is None:
                found_async = self.performers.find_async(effect)
                if found_async is not None and plain:
                    self.performers._async_cache[kind] = found_async
            if found_async is not None:
                self.problem = _AwaitWith(found_async)
                return None
        found = self.performers.find(effect)
        if found is None:
            self.problem = "no performer registered" + (
                "" if self.asynchronous else " (async ones need arun)"
            )
        elif self.asynchronous and type(found) is TimedPerformer:  # wait in a thread, not on the loop
            if plain:
                self.performers._async_cache[kind] = found.in_loop
            self.problem = _AwaitWith(found.in_loop)
            return None
        elif plain:
            self.found[kind] = found
        return found

    def take(self) -> object:
        problem, self.problem = self.problem, None
        return problem


def run(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Run until a terminal state, a suspension, or a failure (synchronous).

    ``start`` is a memory (a fresh run from the initial state) or a snapshot.
    """
    shell = shell or Shell()
    if shell.observer is None:
        return _run(machine, start, shell, None)
    watching = start_watching(shell.observer, machine, start)
    if watching is None:
        return _run(machine, start, shell, None)
    result = _run(machine, start, shell._watched(watching), watching.on_row, watching.on_memory)
    watching.ended(result)
    return result


def _run(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell,
    on_row: OnRow | None,
    on_memory: OnMemory | None = None,
) -> RunResult[StateT, MemoryT]:
    inline = _Inline(shell.performers, asynchronous=False)
    fold = (
        drive(machine, start, shell.clock, inline.perform, on_row, on_memory)
        if isinstance(start, Snapshot)
        else drive_from(machine, start, shell.clock, inline.perform, on_row, on_memory)
    )
    try:
        effect = next(fold)
        while True:
            problem = inline.take()
            if problem is None:  # yielded untried: the pending effect of an awaiting snapshot
                outcome = inline.perform(effect)
                if outcome is not DEFER:
                    effect = fold.send(outcome)
                    continue
                problem = inline.take()
            return _park(fold, effect, None if problem is SUSPEND else str(problem))
    except StopIteration as stop:
        result: RunResult[StateT, MemoryT] = stop.value
        return result


async def arun(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Run until a terminal state, a suspension, or a failure (asyncio).

    Async performers are awaited; sync performers are called directly (an awaitable
    they return is awaited).
    """
    shell = shell or Shell()
    if shell.observer is None:
        return await _arun(machine, start, shell, None)
    watching = start_watching(shell.observer, machine, start)
    if watching is None:
        return await _arun(machine, start, shell, None)
    result = await _arun(machine, start, shell._watched(watching), watching.on_row, watching.on_memory)
    watching.ended(result)
    return result


async def _arun(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell,
    on_row: OnRow | None,
    on_memory: OnMemory | None = None,
) -> RunResult[StateT, MemoryT]:
    inline = _Inline(shell.performers, asynchronous=True)
    fold = (
        drive(machine, start, shell.clock, inline.perform, on_row, on_memory)
        if isinstance(start, Snapshot)
        else drive_from(machine, start, shell.clock, inline.perform, on_row, on_memory)
    )
    try:
        effect = next(fold)
        while True:
            problem = inline.take()
            if problem is None:  # yielded untried: the pending effect of an awaiting snapshot
                outcome = inline.perform(effect)
                if outcome is not DEFER:
                    effect = fold.send(outcome)
                    continue
                problem = inline.take()
            if type(problem) is _AwaitWith or inspect.isawaitable(problem):
                try:
                    if type(problem) is _AwaitWith:
                        outcome = await problem.performer(effect)
                    else:
                        outcome = await problem  # type: ignore[misc]  # an awaitable a sync performer returned
                except Exception as exc:  # the effect failed: an outcome the machine routes
                    outcome = raised_failure(effect, exc)
                if outcome is SUSPEND:
                    return _park(fold, effect, None)
                effect = fold.send(outcome)
                continue
            return _park(fold, effect, None if problem is SUSPEND else str(problem))
    except StopIteration as stop:
        result: RunResult[StateT, MemoryT] = stop.value
        return result


def _resumed(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    outcome: object,
    shell: Shell,
    watching: Watching | None,
) -> RunResult[StateT, MemoryT]:
    """The pure resume of a suspended run with ``outcome``, at the shell's clock reading."""
    try:
        now = shell.clock()
    except Exception as exc:
        return Failure(
            RunFailed(
                EffectFailed(snapshot.state, "clock", redact_credentials(f"the clock raised {exc!r}")),
                snapshot,
            )
        )
    resumed = resume(machine, snapshot, outcome, now)
    if watching is not None and isinstance(resumed, Success):
        watching.resumed(snapshot, resumed.unwrap())
    return resumed


def resume_run(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    outcome: object,
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Deliver the outcome of a suspended run's pending effect, then run on (sync).

    Example use: a human approved a tool call; ``outcome`` is the approval.
    """
    shell = shell or Shell()
    watching = None if shell.observer is None else start_watching(shell.observer, machine, snapshot, True)
    resumed = _resumed(machine, snapshot, outcome, shell, watching)
    if watching is None:
        return resumed if isinstance(resumed, Failure) else _run(machine, resumed.unwrap(), shell, None)
    result = (
        resumed
        if isinstance(resumed, Failure)
        else _run(machine, resumed.unwrap(), shell._watched(watching), watching.on_row, watching.on_memory)
    )
    watching.ended(result)
    return result


async def aresume_run(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    outcome: object,
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Deliver the outcome of a suspended run's pending effect, then run on (asyncio)."""
    shell = shell or Shell()
    watching = None if shell.observer is None else start_watching(shell.observer, machine, snapshot, True)
    resumed = _resumed(machine, snapshot, outcome, shell, watching)
    if watching is None:
        return (
            resumed if isinstance(resumed, Failure) else await _arun(machine, resumed.unwrap(), shell, None)
        )
    result = (
        resumed
        if isinstance(resumed, Failure)
        else await _arun(
            machine, resumed.unwrap(), shell._watched(watching), watching.on_row, watching.on_memory
        )
    )
    watching.ended(result)
    return result
