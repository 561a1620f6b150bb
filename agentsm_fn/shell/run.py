"""Running a machine: the thin shell that performs effects between pure steps.

:func:`run` and :func:`arun` drive the engine's pure fold (``core.engine.drive``):
each effect the machine yields is performed by the registered performer and its
outcome (journaled by the fold before any handler sees it) is sent back. A
performer that returns ``SUSPEND`` pauses the run: the result is an AWAITING
snapshot, a value you can store and later finish with :func:`resume_run`.
A performer that raises, or a missing performer, ends the run with
``EffectFailed`` and the awaiting snapshot, so nothing is lost and the run can
be resumed once the cause is fixed.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Generator
from types import CoroutineType
from typing import Final, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import SUSPEND, drive, drive_from, resume
from agentsm_fn.core.failures import EffectFailed, RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell.clock import Clock, system_clock
from agentsm_fn.shell.performers import Performer, Performers

__all__ = ["Shell", "arun", "resume_run", "run"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def _unseen(_effect: Effect[object]) -> object:  # pragma: no cover - a sentinel, never called
    return None


_UNSEEN: Final[Performer] = _unseen  # "not looked up yet" in a run's performer cache

RunResult = Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]


@attrs.frozen
class Shell:
    """The IO a run may use: effect performers and a clock.

    Example:
        >>> Shell().performers.sync
        mappingproxy({})
    """

    performers: Performers = attrs.field(factory=Performers)
    clock: Clock = system_clock


def _drive(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    clock: Clock,
) -> Generator[Effect[object], object, RunResult[StateT, MemoryT]]:
    if isinstance(start, Snapshot):
        return drive(machine, start, clock)
    return drive_from(machine, start, clock)


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
    return Failure(RunFailed(EffectFailed(snapshot.state, effect.summary(), problem), snapshot))


def _raised(exc: Exception) -> str:
    return f"performer raised {type(exc).__qualname__}: {exc}"


def run(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Run until a terminal state, a suspension, or a failure (synchronous).

    ``start`` is a memory (a fresh run from the initial state) or a snapshot.
    """
    shell = shell or Shell()
    performers = shell.performers
    found: dict[type, Performer | None] = {}
    fold = _drive(machine, start, shell.clock)
    try:
        effect = next(fold)
        while True:
            kind = type(effect)
            performer = found.get(kind, _UNSEEN)
            if performer is _UNSEEN:
                performer = found[kind] = performers.find(effect)
            if performer is None:
                return _park(fold, effect, "no performer registered (for arun, register with on_async)")
            try:
                outcome = performer(effect)
            except Exception as exc:
                return _park(fold, effect, _raised(exc))
            if outcome is SUSPEND:
                return _park(fold, effect, None)
            if type(outcome) is CoroutineType:
                outcome.close()
                return _park(fold, effect, "performer returned a coroutine; use arun")
            effect = fold.send(outcome)
    except StopIteration as stop:
        result: RunResult[StateT, MemoryT] = stop.value
        return result


async def arun(
    machine: Machine[StateT, EventT, MemoryT],
    start: MemoryT | Snapshot[StateT, MemoryT],
    shell: Shell | None = None,
) -> RunResult[StateT, MemoryT]:
    """Run until a terminal state, a suspension, or a failure (asyncio).

    Async performers are awaited; sync performers are called directly.
    """
    shell = shell or Shell()
    fold = _drive(machine, start, shell.clock)
    try:
        effect = next(fold)
        while True:
            async_performer = shell.performers.find_async(effect)
            performer = shell.performers.find(effect)
            try:
                if async_performer is not None:
                    outcome = await async_performer(effect)
                elif performer is not None:
                    outcome = performer(effect)
                    if inspect.isawaitable(outcome):
                        outcome = await outcome
                else:
                    return _park(fold, effect, "no performer registered")
            except Exception as exc:
                return _park(fold, effect, _raised(exc))
            if outcome is SUSPEND:
                return _park(fold, effect, None)
            effect = fold.send(outcome)
    except StopIteration as stop:
        result: RunResult[StateT, MemoryT] = stop.value
        return result


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
    resumed = resume(machine, snapshot, outcome, shell.clock())
    if isinstance(resumed, Failure):
        return resumed
    return run(machine, resumed.unwrap(), shell)
