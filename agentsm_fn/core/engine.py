"""The engine's reference semantics: a run as a fold of pure steps over the transition table.

Read this module first: it says what a run *means*. One step: if the state is
terminal the run is finished; otherwise call the state's handler on the memory,
and route its decision: an event goes through the table (no row is a typed
failure), an effect request parks the snapshot until the shell brings the
outcome. Every failure keeps the snapshot from before the failing step.

* :func:`begin` is the snapshot of a run that has not started;
* :func:`step` and :func:`resume` take one step on a snapshot (the public, pure API);
* :func:`replay` folds a recorded journal with them and no IO at all.

The shell does not call these step by step: it runs :func:`agentsm_fn.core.driver.drive`,
the same fold hand-optimised on local variables. ``tests/core/test_laws.py`` proves the
two equal on randomly generated machines (``test_drive_and_step_by_step_agree``,
``test_the_run_loop_and_step_judge_every_decision_alike``) and that replay reproduces
every run (``test_replay_of_a_recorded_run_equals_the_run``).

One idea over 300 lines: the reference semantics is read whole (``step`` and ``resume``
share ``_settle`` and ``_classify``, ``replay`` folds them); split, the definition of a run would scatter.
"""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core._failure_route import route_failure
from agentsm_fn.core.effects import Effect, Perform, describe_effect
from agentsm_fn.core.failures import (
    BadDecision,
    EffectFailed,
    HandlerFaulted,
    HandlerRaised,
    InvalidTransition,
    MissingHandler,
    Reason,
    ReplayDiverged,
    RunFailed,
    SafetyCapExceeded,
    WrongStatus,
)
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit
from agentsm_fn.core.journal import DigestFn, EffectDigest, Journal, digest_summary, effect_digest
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status

__all__ = ["begin", "replay", "resume", "step"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

StepResult = Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]


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
    An outcome the effect does not accept (an ``EffectFailure`` the shell delivered,
    or a value of the wrong type) takes the failure route of
    :mod:`agentsm_fn.core.effect_failures`. Never raises.
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
    handler = machine.handlers.get(state)
    ready = attrs.evolve(snapshot, status=Status.READY, pending=None)
    if not accepted:
        route = route_failure(handler, state, effect, outcome)
        if route[0] == "fail":
            return Failure(RunFailed(route[1], kept if route[2] else snapshot))
        if route[0] == "emit":  # the state's failure_event, with the memory the request left
            return _settle(machine, ready, journal, emit(route[1], snapshot.memory), now, kept)
        outcome = route[1]
    if handler is None:
        return Failure(RunFailed(MissingHandler(state), kept))
    try:
        decision: object = handler.resume(snapshot.memory, effect, outcome)
    except Exception as exc:
        return Failure(RunFailed(_raised(state, "resume", exc), kept))
    return _settle(machine, ready, journal, decision, now, kept)


def replay(
    machine: Machine[StateT, EventT, MemoryT],
    start: Snapshot[StateT, MemoryT],
    journal: Journal,
    digest: DigestFn = effect_digest,
) -> StepResult[StateT, MemoryT]:
    """Fold a recorded journal from ``start``: the same final snapshot, with no IO.

    A journal recorded from a failed run replays to the same failure; a failure that
    was later retried (``run`` on the failure's snapshot) replays as the retry went on.
    Entries beyond ``start``'s own journal are replayed; the rest are skipped, so
    ``replay(m, start, finished.journal)`` works for any run begun at ``start``.
    Each effect the run requests again is checked against the journaled digest with
    ``digest`` (:func:`~agentsm_fn.core.journal.effect_digest` unless a store recorded
    its own); a mismatch stops the replay with ``ReplayDiverged`` naming the entry and step.
    """
    snap = start
    for index in range(len(start.journal), len(journal)):
        entry = journal[index]
        if entry.digest is None:
            if snap.status is not Status.READY:
                return Failure(
                    RunFailed(ReplayDiverged(index, f"a tick, but the run is {snap.status.value}"), snap)
                )
            result = step(machine, snap, entry.at)
        else:
            problem = _diverges(snap, entry.digest, digest)
            if problem is not None:
                return Failure(RunFailed(ReplayDiverged(index, problem), snap))
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


def _diverges(snap: Snapshot[StateT, MemoryT], journaled: EffectDigest, digest: DigestFn) -> str | None:
    """Why an outcome journaled for an effect with digest ``journaled`` does not fit ``snap``, or None."""
    pending = snap.pending
    if snap.status is Status.AWAITING and pending is not None:
        try:
            again: EffectDigest = digest(pending)
        except Exception as exc:  # a store's digest that cannot read this effect
            again = f"<digest raised {type(exc).__qualname__}: {exc}>"
        if again == journaled:
            return None
    found = "nothing" if pending is None else describe_effect(pending)
    return (
        f"step {snap.steps + 1} in {snap.state.name}: the journal has an outcome of "
        f"{digest_summary(journaled)[1]}, the run requested {found}"
    )
