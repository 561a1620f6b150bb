"""The engine: a dumb fold over the transition table. Pure; the shell supplies time and outcomes.

One step: if the state is terminal the run is finished; otherwise call the state's
handler on the memory, and route its decision: an event goes through the table (no
row is a typed failure), an effect request parks the snapshot until the shell
brings the outcome. Every failure keeps the snapshot from before the failing step.

* :func:`step` and :func:`resume` take one step on a snapshot (the public, pure API);
* :func:`replay` folds a recorded journal with them and no IO at all;
* :func:`drive` is the same fold as a generator the shell runs: it yields each
  effect and is sent the outcome. It keeps the run in local variables, so a long
  run costs the same per step as a short one.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Generator
from typing import Final, Literal, TypeAlias, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core._fast import new_instance
from agentsm_fn.core.effects import Effect, Perform, describe_effect
from agentsm_fn.core.failures import (
    BadDecision,
    EffectFailed,
    HandlerFaulted,
    HandlerRaised,
    InvalidTransition,
    MissingHandler,
    OutcomeRejected,
    Reason,
    ReplayDiverged,
    RunFailed,
    SafetyCapExceeded,
    WrongStatus,
)
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import _success
from agentsm_fn.core.journal import Journal, _journal
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import _EMPTY_JOURNAL, _EMPTY_TRACE, _SETTERS, Snapshot, Status, _snapshot
from agentsm_fn.core.trace import Trace, _trace

__all__ = ["DEFER", "SUSPEND", "Defer", "Suspend", "begin", "drive", "drive_from", "replay", "resume", "step"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

StepResult = Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]

_BASE_ACCEPTS: Final = Effect.accepts
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

_Routed: TypeAlias = (
    tuple[Literal["move"], EventT, StateT, MemoryT]
    | tuple[Literal["await"], Effect[object], MemoryT, None]
    | tuple[Literal["fail"], Reason, None, None]
)


def begin(machine: Machine[StateT, EventT, MemoryT], memory: MemoryT) -> Snapshot[StateT, MemoryT]:
    """The snapshot of a run that has not taken a step yet.

    Example:
        >>> import enum
        >>> from agentsm_fn.core.machine import define_machine
        >>> from agentsm_fn.core.handlers import emit
        >>> class S(enum.Enum):
        ...     A = 1
        ...     Z = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.Z},
        ...                    table={(S.A, E.GO): S.Z}, handlers={S.A: lambda n: emit(E.GO, n)})
        >>> begin(m, 0).state, begin(m, 0).status
        (<S.A: 1>, <Status.READY: 'ready'>)
    """
    status = Status.FINISHED if machine.initial in machine.terminals else Status.READY
    return Snapshot(state=machine.initial, memory=memory, status=status)


def _describe(value: object) -> str:
    return f"{type(value).__name__} {value!r}"[:200]


def _classify(
    machine: Machine[StateT, EventT, MemoryT], state: StateT, decision: object
) -> _Routed[EventT, StateT, MemoryT]:
    """Route a handler's decision to a move, an effect request, or a failure reason."""
    if isinstance(decision, Success):
        value = decision.unwrap()
        if type(value) is tuple and len(value) == 2:
            event, memory = value
            try:
                target = machine.table.get((state, event))
            except TypeError:  # an unhashable "event"
                return "fail", BadDecision(state, _describe(event)), None, None
            if target is None:
                if isinstance(event, enum.Enum):
                    return "fail", InvalidTransition(state, event), None, None
                return (
                    "fail",
                    BadDecision(state, f"an event that is not an enum: {_describe(event)}"),
                    None,
                    None,
                )
            # The handler is typed to return (EventT, MemoryT); the row proves the event is ours.
            return "move", cast(EventT, event), target, cast(MemoryT, memory)
        if isinstance(value, Perform):
            if not isinstance(value.effect, Effect):
                return (
                    "fail",
                    BadDecision(state, f"Perform of a non-Effect {_describe(value.effect)}"),
                    None,
                    None,
                )
            return "await", value.effect, cast(MemoryT, value.memory), None
        return "fail", BadDecision(state, f"Success({_describe(value)})"), None, None
    if isinstance(decision, Failure):
        fault = decision.failure()
        if isinstance(fault, Fault):
            return "fail", HandlerFaulted(state, fault), None, None
        return "fail", BadDecision(state, f"Failure({_describe(fault)})"), None, None
    return "fail", BadDecision(state, _describe(decision)), None, None


def _clock_failed(state: enum.Enum, exc: Exception) -> EffectFailed:
    return EffectFailed(state, "clock", f"the clock raised {type(exc).__qualname__}: {exc}"[:500])


def _raised(state: enum.Enum, phase: str, exc: Exception) -> HandlerRaised:
    return HandlerRaised(state, phase, type(exc).__qualname__, str(exc)[:500])


def _narrate(machine: Machine[StateT, EventT, MemoryT], state: StateT, event: EventT, memory: MemoryT) -> str:
    narrate = machine.narrate
    if narrate is None:
        return ""
    try:
        return narrate(state, event, memory)
    except Exception as exc:  # a narrator bug must not lose the run
        return f"<narrator raised {type(exc).__qualname__}: {exc}>"


def _settle(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    journal: Journal,
    decision: object,
    now: float,
    kept: Snapshot[StateT, MemoryT],
) -> StepResult[StateT, MemoryT]:
    """Apply a decision to ``snapshot``; on failure return ``kept`` (the last good snapshot)."""
    state = snapshot.state
    routed = _classify(machine, state, decision)
    if routed[0] == "move":
        _, event, target, memory = routed
        steps = snapshot.steps + 1
        data = _narrate(machine, state, event, memory)
        trace = snapshot.trace.record(steps, state, event, target, data, now)
        status = Status.FINISHED if target in machine.terminals else Status.READY
        return Success(
            Snapshot(state=target, memory=memory, status=status, steps=steps, trace=trace, journal=journal)
        )
    if routed[0] == "await":
        _, effect, memory, _ = routed
        trace = snapshot.trace.record_request(snapshot.steps + 1, state, effect, now)
        return Success(
            Snapshot(
                state=state,
                memory=memory,
                status=Status.AWAITING,
                pending=effect,
                steps=snapshot.steps,
                trace=trace,
                journal=journal,
            )
        )
    return Failure(RunFailed(routed[1], kept))


def step(
    machine: Machine[StateT, EventT, MemoryT], snapshot: Snapshot[StateT, MemoryT], now: float
) -> StepResult[StateT, MemoryT]:
    """Run the handler of a READY snapshot's state once, at clock reading ``now``.

    Returns the next snapshot (READY, AWAITING an effect, or FINISHED) or a
    :class:`RunFailed` whose snapshot is ``snapshot`` with the tick journaled.
    Never raises.
    """
    if snapshot.status is not Status.READY:
        return Failure(RunFailed(WrongStatus(snapshot.state, Status.READY, snapshot.status), snapshot))
    if snapshot.state in machine.terminals:  # terminal check before any handler, as in run
        return Success(attrs.evolve(snapshot, status=Status.FINISHED))
    journal = snapshot.journal.tick(now)
    state, memory = snapshot.state, snapshot.memory
    reason: Reason | None = None
    try:
        cap = machine.cap_for(memory)
    except Exception as exc:
        reason = _raised(state, "safety_cap", exc)
    else:
        if snapshot.steps >= cap:
            reason = SafetyCapExceeded(state, snapshot.steps, cap)
    handler = machine.handlers.get(state)
    if reason is None and handler is None:
        reason = MissingHandler(state)
    if reason is not None or handler is None:
        return Failure(RunFailed(reason or MissingHandler(state), attrs.evolve(snapshot, journal=journal)))
    try:
        decision: object = handler.enter(memory)
    except Exception as exc:
        return Failure(RunFailed(_raised(state, "enter", exc), attrs.evolve(snapshot, journal=journal)))
    return _settle(machine, snapshot, journal, decision, now, attrs.evolve(snapshot, journal=journal))


def resume(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    outcome: object,
    now: float,
) -> StepResult[StateT, MemoryT]:
    """Hand the outcome of the pending effect to the handler, at clock reading ``now``.

    The outcome is journaled before the handler sees it, so a failure keeps it.
    Never raises.
    """
    effect = snapshot.pending
    if snapshot.status is not Status.AWAITING or effect is None:
        return Failure(RunFailed(WrongStatus(snapshot.state, Status.AWAITING, snapshot.status), snapshot))
    journal = snapshot.journal.outcome(effect, outcome, now)
    state = snapshot.state
    kept = attrs.evolve(snapshot, journal=journal)
    try:
        accepted = effect.accepts(outcome)
    except Exception as exc:
        return Failure(RunFailed(_raised(state, "accepts", exc), kept))
    if not accepted:
        reason = OutcomeRejected(state, describe_effect(effect), type(outcome).__qualname__)
        return Failure(RunFailed(reason, kept))
    handler = machine.handlers.get(state)
    if handler is None:
        return Failure(RunFailed(MissingHandler(state), kept))
    try:
        decision: object = handler.resume(snapshot.memory, effect, outcome)
    except Exception as exc:
        return Failure(RunFailed(_raised(state, "resume", exc), kept))
    ready = attrs.evolve(snapshot, status=Status.READY, pending=None)
    return _settle(machine, ready, journal, decision, now, kept)


def replay(
    machine: Machine[StateT, EventT, MemoryT],
    start: Snapshot[StateT, MemoryT],
    journal: Journal,
) -> StepResult[StateT, MemoryT]:
    """Fold a recorded journal from ``start``: the same final snapshot, with no IO.

    A journal recorded from a failed run replays to the same failure; a failure that
    was later retried (``run`` on the failure's snapshot) replays as the retry went on.
    Entries beyond ``start``'s own journal are replayed; the rest are skipped, so
    ``replay(m, start, finished.journal)`` works for any run begun at ``start``.
    """
    snap = start
    for index in range(len(start.journal), len(journal)):
        entry = journal[index]
        if entry.effect is None:
            if snap.status is not Status.READY:
                return Failure(
                    RunFailed(ReplayDiverged(index, f"a tick, but the run is {snap.status.value}"), snap)
                )
            result = step(machine, snap, entry.at)
        else:
            if snap.status is not Status.AWAITING or snap.pending != entry.effect:
                found = "nothing" if snap.pending is None else describe_effect(snap.pending)
                journaled = describe_effect(entry.effect)
                message = f"journal has an outcome of {journaled}, the run requested {found}"
                return Failure(RunFailed(ReplayDiverged(index, message), snap))
            result = resume(machine, snap, entry.outcome, entry.at)
        if isinstance(result, Failure):
            if index == len(journal) - 1:
                return result
            # The run failed here and was retried from its failure snapshot (as ``run`` allows):
            # go on from that snapshot, exactly as the retried run did.
            snap = result.failure().snapshot
            continue
        snap = result.unwrap()
    return Success(snap)


def drive(
    machine: Machine[StateT, EventT, MemoryT],
    snapshot: Snapshot[StateT, MemoryT],
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """Run to a terminal state as a generator: yields effects, is sent their outcomes.

    Send :data:`SUSPEND` instead of an outcome to stop with the AWAITING snapshot.
    ``clock`` is read once per handler call and once per outcome, exactly as
    :func:`step` and :func:`resume` are given ``now``, so the journal replays.
    ``perform``, if given, is tried first for each effect: it returns the outcome,
    or :data:`DEFER` to have the effect yielded to the caller instead (the shell
    passes its sync performers this way and saves a generator round trip).
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
        snapshot = resumed.unwrap()
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
        )
    )


def drive_from(
    machine: Machine[StateT, EventT, MemoryT],
    memory: MemoryT,
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """:func:`drive` for a fresh run from ``memory`` (no initial snapshot is built)."""
    return _fold(machine, machine.initial, memory, 0, _EMPTY_TRACE, _EMPTY_JOURNAL, clock, perform)


def _parked(
    state: object,
    memory: MemoryT,
    steps: int,
    trace: Trace,
    journal: Journal,
    rows: list[tuple[int, object, object, object, object, float]],
    ticks: list[float | tuple[float, Effect[object], object]],
    status: Status,
    pending: Effect[object] | None,
) -> Snapshot[StateT, MemoryT]:
    return _snapshot(
        cast(StateT, state),  # nodes are built from this machine's states
        memory,
        status,
        pending,
        steps,
        trace.extend(rows) if rows else trace,
        _journal(journal.rows.extend(ticks)) if ticks else journal,
    )


def _fold(
    machine: Machine[StateT, EventT, MemoryT],
    start: StateT,
    memory: MemoryT,
    steps: int,
    trace: Trace,
    journal: Journal,
    clock: Callable[[], float],
    perform: Callable[[Effect[object]], object] | None = None,
) -> Generator[Effect[object], object, StepResult[StateT, MemoryT]]:
    """The hot loop: the same logic as step/resume on locals; a snapshot is built only on exit.

    Written for speed (it is most of what a run costs beyond the user's handlers): no
    helper calls on the path of a pure transition, locals for everything it reads twice.
    """
    rows: list[tuple[int, object, object, object, object, float]] = []
    ticks: list[float | tuple[float, Effect[object], object]] = []
    compiled = machine._compiled or machine.compiled
    node = compiled.get(start)
    if node is None:
        parked: Snapshot[StateT, MemoryT] = _parked(
            start, memory, steps, trace, journal, rows, ticks, Status.READY, None
        )
        return Failure(RunFailed(MissingHandler(start), parked))
    if node.terminal:
        return _success(_parked(start, memory, steps, trace, journal, rows, ticks, Status.FINISHED, None))
    narrate = machine.narrate
    add_row, add_tick = rows.append, ticks.append
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
                try:
                    value = decision._inner_value  # Success's one slot (probed in handlers)
                except AttributeError:  # pragma: no cover - a future returns may lay it out differently
                    value = decision.unwrap()
                if type(value) is tuple:
                    try:
                        event, new_memory = value
                    except ValueError:  # not a pair: no edge, so the general route below reports it
                        event = None
                    following = node.edges.get(id(event))
                    if following is not None:
                        steps += 1
                        if narrate is None:
                            add_row((steps, state, event, following.state, "", now))
                        else:
                            data = _narrate(machine, state, event, new_memory)
                            add_row((steps, state, event, following.state, data, now))
                        node, memory = following, new_memory
                        break
                elif type(value) is Perform and isinstance(value[0], Effect):
                    effect: Effect[object] = value[0]
                    memory = value[1]
                    add_row((steps + 1, state, effect, None, "", now))
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
                        return _success(parked)
                    awaiting, awaiting_at = effect, steps  # pending until the step count moves on
                    try:
                        now = clock()
                    except (
                        Exception
                    ) as exc:  # the effect stays pending: perform it again once the clock works
                        reason = _clock_failed(state, exc)
                        break
                    add_tick((now, effect, outcome))
                    try:
                        if type(effect).accepts is _BASE_ACCEPTS:
                            accepted = isinstance(outcome, effect.outcome_types)
                        else:
                            accepted = effect.accepts(outcome)
                    except Exception as exc:
                        reason = _raised(state, "accepts", exc)
                        break
                    if not accepted:
                        reason = OutcomeRejected(state, describe_effect(effect), type(outcome).__qualname__)
                        break
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
                node = compiled[target]
                break
            _, pending, memory, _ = routed
            decision = Success(Perform(pending, memory))  # normalised; handled above on the next pass
        if reason is not None:
            break
        if node.terminal:  # stop on arrival
            if _SETTERS is None:
                return _success(
                    _parked(node.state, memory, steps, trace, journal, rows, ticks, Status.FINISHED, None)
                )
            # _parked and _success inlined: every finished run ends here
            finished: Snapshot[StateT, MemoryT] = new_instance(Snapshot)
            set_state, set_memory, set_status, set_pending, set_steps, set_trace, set_journal = _SETTERS
            set_state(finished, node.state)
            set_memory(finished, memory)
            set_status(finished, _FINISHED)
            set_pending(finished, None)
            set_steps(finished, steps)
            set_trace(finished, _trace(trace.rows.extend(rows)))
            set_journal(finished, _journal(journal.rows.extend(ticks)))
            return _success(finished)
    if awaiting_at != steps:
        awaiting = None
    status = Status.READY if awaiting is None else Status.AWAITING
    failed: Snapshot[StateT, MemoryT] = _parked(
        state, memory, steps, trace, journal, rows, ticks, status, awaiting
    )
    assert reason is not None  # every break above sets it
    return Failure(RunFailed(reason, failed))
