"""The engine's fold, hand-optimised: :func:`drive` runs a machine as a generator the shell steps.

Read :mod:`agentsm_fn.core.engine` first: this module computes exactly what folding its
``step`` and ``resume`` computes, only faster: it keeps the run in local variables and builds
a snapshot only when it stops, so a long run costs the same per step as a short one.
``tests/core/test_laws.py`` proves the two equal on random machines and decisions
(``test_drive_and_step_by_step_agree``, ``test_the_run_loop_and_step_judge_every_decision_alike``).
:func:`drive` yields each effect and is sent its outcome (:data:`SUSPEND` sent instead stops
the run with an AWAITING snapshot; a ``perform`` function returning :data:`DEFER` hands an
effect to the caller instead of performing it in line).

One idea over 300 lines: the one hot loop, kept in one function on purpose (a helper call
per transition is the cost it exists to avoid).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator
from typing import Final, TypeAlias, TypeVar, cast

from returns.result import Failure, Result, Success

from agentsm_fn.core._failure_route import route_failure
from agentsm_fn.core.effect_failures import EffectFailure
from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.engine import _classify, _clock_failed, _narrate, _raised, resume
from agentsm_fn.core.failures import (
    MissingHandler,
    Reason,
    RunFailed,
    SafetyCapExceeded,
    WrongStatus,
)
from agentsm_fn.core.handlers import emit
from agentsm_fn.core.journal import _PLAIN_SUMMARY, EffectDigest, Journal, effect_digest
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import _EMPTY_JOURNAL, _EMPTY_TRACE, Snapshot, Status
from agentsm_fn.core.trace import Trace

__all__ = ["DEFER", "SUSPEND", "Defer", "OnMemory", "OnRow", "Suspend", "drive", "drive_from"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

StepResult = Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]

_BASE_ACCEPTS: Final = Effect.accepts
_EFFECT_FAILURE: Final = EffectFailure
_FINISHED: Final = Status.FINISHED


class Suspend(enum.Enum):
    """Sent to :func:`drive` instead of an outcome: stop here and return the awaiting snapshot."""

    SUSPEND = "suspend"


SUSPEND: Final = Suspend.SUSPEND
"""The one :class:`Suspend` value."""


class Defer(enum.Enum):
    """Returned by a ``perform`` function given to :func:`drive`: "yield this effect to the caller"."""

    DEFER = "defer"


DEFER: Final = Defer.DEFER
"""The one :class:`Defer` value."""


def drive(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
    on_row: OnRow | None = None,
    on_memory: OnMemory | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """Run to a terminal state as a generator: yields effects, is sent their outcomes.

    Send :data:`SUSPEND` instead of an outcome to stop with the AWAITING snapshot.
    ``clock`` is read once per handler call and once per outcome, exactly as
    :func:`step` and :func:`resume` are given ``now``, so the journal replays.
    ``perform``, if given, is tried first for each effect: it returns the outcome,
    or :data:`DEFER` to have the effect yielded to the caller instead (the shell
    passes its sync performers this way and saves a generator round trip).
    ``on_row``, if given, is called with each trace row as it is recorded
    (``(step, state, event or effect, target or None, data, clock reading)``; the
    shell's observers watch a run this way). ``on_memory``, if given, is called
    after each transition's row with the step and the memory the run now holds (for
    an observer that asks for it). Without them the fold is unchanged.
    """
    if snapshot.status is Status.AWAITING:
        if snapshot.pending is None:
            return Failure(RunFailed(WrongStatus(snapshot.state, Status.AWAITING, Status.READY), snapshot))
        outcome = yield snapshot.pending
        if outcome is SUSPEND:
            return Success(snapshot)
        try:
            now = clock()
        except Exception as exc:
            return Failure(RunFailed(_clock_failed(snapshot.state, exc), snapshot))
        resumed = resume(machine, snapshot, outcome, now)
        if isinstance(resumed, Failure):
            return resumed
        moved = resumed.unwrap()
        if on_row is not None:
            for row in moved.trace.rows[len(snapshot.trace) :]:
                on_row(row)
        if on_memory is not None and moved.steps != snapshot.steps:  # resume takes one decision
            on_memory(moved.steps, moved.memory)
        snapshot = moved
    if snapshot.status is Status.FINISHED:
        return Success(snapshot)

    return (
        yield from _fold(
            machine,
            snapshot.state,
            snapshot.memory,
            snapshot.steps,
            snapshot.trace,
            snapshot.journal,
            clock,
            perform,
            on_row,
            on_memory,
        )
    )


def drive_from(
    machine: Machine[StateT, EventT, MemoryT],
    memory: MemoryT,
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
    on_row: OnRow | None = None,
    on_memory: OnMemory | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """:func:`drive` for a fresh run from ``memory`` (no initial snapshot is built)."""
    return _fold(
        machine, machine.initial, memory, 0, _EMPTY_TRACE, _EMPTY_JOURNAL, clock, perform, on_row, on_memory
    )


def _parked(
    state: object,
    memory: MemoryT,
    steps: int,
    trace: Trace,
    journal: Journal,
    rows: list[tuple[int, object, object, object, object, float]],
    ticks: list[float | tuple[float, EffectDigest, object]],
    status: Status,
    pending: Effect[object] | None,
) -> Snapshot[StateT, MemoryT]:
    return Snapshot(
        state=cast(StateT, state),  # nodes are built from this machine's states
        memory=memory,
        status=status,
        pending=pending,
        steps=steps,
        trace=Trace(trace.rows.extend(rows)) if rows else trace,
        journal=Journal(journal.rows.extend(ticks)) if ticks else journal,
    )


OnRow: TypeAlias = Callable[[tuple[int, object, object, object, object, float]], None]
"""Called by :func:`drive` with each trace row as it is recorded."""

OnMemory: TypeAlias = Callable[[int, object], None]
"""Called by :func:`drive` after each transition with its step and the memory the run then holds."""


def _reporting(
    rows: list[tuple[int, object, object, object, object, float]], on_row: OnRow
) -> Callable[[tuple[int, object, object, object, object, float]], None]:
    """``rows.append`` that also hands each row to ``on_row``."""
    append = rows.append

    def add(row: tuple[int, object, object, object, object, float]) -> None:
        append(row)
        on_row(row)

    return add


def _fold(
    machine: Machine[StateT, EventT, MemoryT],
    start: StateT,
    memory: MemoryT,
    steps: int,
    trace: Trace,
    journal: Journal,
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
    on_row: OnRow | None = None,
    on_memory: OnMemory | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """The hot loop: the same logic as step/resume on locals; a snapshot is built only on exit.

    Written for speed (it is most of what a run costs beyond the user's handlers): no
    helper calls on the path of a pure transition, locals for everything it reads twice.
    ``on_memory`` costs nothing when absent: it shares the one test a transition makes
    already (``plain``: no narrator and nobody watching the memory).
    """
    rows: list[tuple[int, object, object, object, object, float]] = []
    ticks: list[float | tuple[float, EffectDigest, object]] = []
    compiled = machine.compiled
    node = compiled.get(start)
    if node is None:
        parked: Snapshot[StateT, MemoryT] = _parked(
            start, memory, steps, trace, journal, rows, ticks, Status.READY, None
        )
        return Failure(RunFailed(MissingHandler(start), parked))
    if node.terminal:
        return Success(_parked(start, memory, steps, trace, journal, rows, ticks, Status.FINISHED, None))
    plain = machine.narrate is None and on_memory is None  # a transition's row is all it records
    add_row, add_tick = rows.append, ticks.append
    if on_row is not None:  # an observed run: each row is also reported as it is recorded
        add_row = _reporting(rows, on_row)
    awaiting: Effect[object] | None = None  # the effect whose outcome is being handled at step awaiting_at:
    awaiting_at = -1  # a failure then keeps it pending
    state: StateT = start
    reason: Reason | None = None
    cap = machine.safety_cap
    if type(cap) is not int:
        try:
            cap = machine.cap_for(memory)
        except Exception as exc:  # the run stops at its first step, once the tick is journaled
            cap, reason = -1, _raised(start, "safety_cap", exc)
    while True:
        state = node.state  # type: ignore[assignment]  # nodes hold this machine's states; no cast() call in the hot loop
        try:
            now = clock()
        except Exception as exc:
            reason = _clock_failed(state, exc)
            break
        add_tick(now)
        if steps >= cap:
            if reason is None:
                reason = SafetyCapExceeded(state, steps, cap)
            break
        enter = node.enter
        if enter is None:
            reason = MissingHandler(state)
            break
        try:
            decision: object = enter(memory)
        except Exception as exc:
            reason = _raised(state, "enter", exc)
            break
        while True:
            if type(decision) is Success:
                value = decision.unwrap()
                if type(value) is tuple:
                    try:
                        event, new_memory = value
                    except ValueError:  # not a pair: no edge, so the general route below reports it
                        event = None
                    following = node.edges.get(id(event))
                    if following is not None:
                        steps += 1
                        if plain:
                            add_row((steps, state, event, following.state, "", now))
                        else:
                            data = _narrate(machine, state, event, new_memory)
                            add_row((steps, state, event, following.state, data, now))
                            if on_memory is not None:
                                on_memory(steps, new_memory)
                        node, memory = following, new_memory
                        break
                elif type(value) is Perform and isinstance(value[0], Effect):
                    effect: Effect[object] = value[0]
                    memory = value[1]
                    kind = type(effect)
                    digest: EffectDigest = _PLAIN_SUMMARY.get(kind)  # effect_digest inlined (plain summary)
                    if digest is None:
                        digest = effect_digest(effect)
                    add_row((steps + 1, state, digest, None, "", now))
                    try:
                        outcome = DEFER if perform is None else perform(effect)
                    except Exception:  # a perform function must not raise; if it does, the caller performs
                        outcome = DEFER
                    if outcome is DEFER:
                        outcome = yield effect
                    if outcome is SUSPEND:
                        parked = _parked(
                            state, memory, steps, trace, journal, rows, ticks, Status.AWAITING, effect
                        )
                        return Success(parked)
                    awaiting, awaiting_at = effect, steps  # pending until the step count moves on
                    try:
                        now = clock()
                    except Exception as exc:  # the effect stays pending: performed again once the clock works
                        reason = _clock_failed(state, exc)
                        break
                    try:
                        if kind.accepts is _BASE_ACCEPTS and type(outcome) is not _EFFECT_FAILURE:
                            accepted = isinstance(outcome, effect.outcome_types)
                        else:
                            accepted = effect.accepts(outcome)
                    except Exception as exc:
                        add_tick((now, digest, outcome))
                        reason = _raised(state, "accepts", exc)
                        break
                    if not accepted:  # a failure, or an outcome of the wrong type: engine.resume's rule
                        route = route_failure(node.handler, state, effect, outcome)
                        if route[0] == "fail":
                            if route[2]:
                                add_tick((now, digest, outcome))
                            reason = route[1]
                            break
                        add_tick((now, digest, outcome))
                        if route[0] == "emit":  # the failure_event, with the memory of the request
                            decision = emit(route[1], memory)
                            continue
                        outcome = route[1]
                    else:
                        add_tick((now, digest, outcome))
                    receive = node.receive
                    try:
                        if receive is not None:
                            decision = receive(memory, outcome)
                        elif node.handler is not None:
                            decision = node.handler.resume(memory, effect, outcome)
                    except Exception as exc:
                        reason = _raised(state, "resume", exc)
                        break
                    continue
            # Anything else (failures, odd values, Success subclasses) takes the general route.
            routed = _classify(machine, state, decision)
            if routed[0] == "fail":
                reason = routed[1]
                break
            if routed[0] == "move":
                _, event, target, memory = routed
                steps += 1
                add_row((steps, state, event, target, _narrate(machine, state, event, memory), now))
                if on_memory is not None:
                    on_memory(steps, memory)
                node = compiled[target]
                break
            _, pending, memory, _ = routed
            decision = Success(Perform(pending, memory))  # normalised; handled above on the next pass
        if reason is not None:
            break
        if node.terminal:  # stop on arrival
            return Success(
                Snapshot(
                    state=node.state,  # type: ignore[arg-type]  # as above: one of this machine's states
                    memory=memory,
                    status=_FINISHED,
                    steps=steps,
                    trace=Trace(trace.rows.extend(rows)),
                    journal=Journal(journal.rows.extend(ticks)),
                )
            )
    if awaiting_at != steps:
        awaiting = None
    status = Status.READY if awaiting is None else Status.AWAITING
    failed: Snapshot[StateT, MemoryT] = _parked(
        state, memory, steps, trace, journal, rows, ticks, status, awaiting
    )
    assert reason is not None  # every break above sets it
    return Failure(RunFailed(reason, failed))
