"""One checked run: the engine's steps plus every rule the kit checks after each of them.

:class:`CheckedRun` is shared by the derived Hypothesis state machine (outcomes
drawn by Hypothesis) and the deterministic covering-path suite (outcomes from a
script). After every transition it checks, in this order: the event is declared by
the source handler; it has a row; every memory and transition invariant; the trace
is append-only; the step bound. A broken rule raises :class:`RunViolation`, an
``AssertionError`` whose message is the run so far, one ``STATE --EVENT--> STATE``
line per transition with the outcomes fed to take it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Generic, Literal, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import step
from agentsm_fn.core.failures import InvalidTransition, RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from verification.bound import StepBound
from verification.events import emittable_events
from verification.kit._drive import Moved, advance
from verification.kit._render import short
from verification.kit.coverage import CoverageRecorder
from verification.kit.invariants import MemoryInvariant, Transition, TransitionInvariant
from verification.verify import step_bound

__all__ = ["CheckedRun", "PathStep", "RunRules", "RunViolation", "ViolationKind"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
T = TypeVar("T")

ViolationKind = Literal[
    "invariant", "undeclared-event", "no-row", "step-bound", "run-failed", "terminal", "trace"
]
"""What a :class:`RunViolation` is about."""


@attrs.frozen(kw_only=True)
class PathStep:
    """One line of a counterexample: a transition and the outcomes fed to take it.

    Example:
        >>> PathStep(index=2, source="PLANNING", event="FINAL", target="DONE",
        ...          outcomes=("LlmReply(content='hi')",)).render()
        "2. PLANNING --FINAL--> DONE  <= LlmReply(content='hi')"
    """

    index: int
    source: str
    event: str
    target: str
    outcomes: tuple[str, ...] = ()

    def render(self) -> str:
        """``n. SOURCE --EVENT--> TARGET  <= outcome, ...``."""
        fed = f"  <= {'; '.join(self.outcomes)}" if self.outcomes else ""
        return f"{self.index}. {self.source} --{self.event}--> {self.target}{fed}"


class RunViolation(AssertionError):
    """A generated run broke a rule; ``path`` is the run up to and including the bad step."""

    def __init__(self, kind: ViolationKind, message: str, start: str, path: tuple[PathStep, ...]) -> None:
        self.kind = kind
        self.path = path
        lines = [f"[{kind}] {message}", f"run from memory {start}:"]
        lines += [f"  {p.render()}" for p in path] or ["  (no transition yet)"]
        super().__init__("\n".join(lines))


def _holds(predicate: Callable[[T], bool], value: T) -> tuple[bool, str]:
    try:
        return bool(predicate(value)), ""
    except Exception as exc:  # a predicate that raises is a violated predicate
        return False, f" (the predicate raised {type(exc).__name__}: {exc})"


@attrs.frozen(kw_only=True)
class RunRules(Generic[StateT, EventT, MemoryT]):
    """Everything checked after each step of a run of ``machine``; build with :meth:`of`.

    Example:
        >>> from verification.kit._demo import COUNTER, Tally
        >>> RunRules.of(COUNTER, budget=lambda m: m.limit + 1).limit_for(COUNTER.initial, Tally(limit=3))
        5
    """

    machine: Machine[StateT, EventT, MemoryT]
    memory_invariants: tuple[MemoryInvariant[MemoryT], ...] = ()
    transition_invariants: tuple[TransitionInvariant[StateT, MemoryT], ...] = ()
    budget: Callable[[MemoryT], int] | None = None
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None
    max_effects: int = 20
    declared: Mapping[StateT, frozenset[EventT] | None] = MappingProxyType({})
    bound: StepBound | None = None

    @classmethod
    def of(
        cls,
        machine: Machine[StateT, EventT, MemoryT],
        invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
        *,
        budget: Callable[[MemoryT], int] | None = None,
        accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
        max_effects: int = 20,
    ) -> RunRules[StateT, EventT, MemoryT]:
        """Read the machine once (declared events, step bound) and sort the invariants."""
        return cls(
            machine=machine,
            memory_invariants=tuple(i for i in invariants if isinstance(i, MemoryInvariant)),
            transition_invariants=tuple(i for i in invariants if isinstance(i, TransitionInvariant)),
            budget=budget,
            accept_failure=accept_failure,
            max_effects=max_effects,
            declared=MappingProxyType({s: emittable_events(machine, s) for s in machine.states}),
            bound=step_bound(machine),
        )

    def limit_for(self, state: StateT, memory: MemoryT) -> int | None:
        """The most transitions a run from ``state`` with ``memory`` may take, when known."""
        if self.bound is None or state is not self.machine.initial:
            return None
        if not self.machine.budgeted:
            return self.bound.max_transitions(0)
        return None if self.budget is None else self.bound.max_transitions(self.budget(memory))


class CheckedRun(Generic[StateT, EventT, MemoryT]):
    """A run in progress; :meth:`take` advances it one transition and checks every rule.

    Mutable by design (it is the state of one Hypothesis run or one scripted case).

    Example:
        >>> from verification.kit._demo import COUNTER, Tally
        >>> run = CheckedRun(RunRules.of(COUNTER), COUNTER.initial, Tally(limit=1))
        >>> while run.live:
        ...     _ = run.take(lambda effect: 4)
        >>> [p.event for p in run.path], run.snapshot.state.name
        (['START', 'ROLLED', 'ENOUGH'], 'DONE')
    """

    def __init__(
        self,
        rules: RunRules[StateT, EventT, MemoryT],
        state: StateT,
        memory: MemoryT,
        coverage: CoverageRecorder[StateT, EventT, MemoryT] | None = None,
    ) -> None:
        machine = rules.machine
        self.rules = rules
        self.coverage = coverage
        status = Status.FINISHED if state in machine.terminals else Status.READY
        self.snapshot: Snapshot[StateT, MemoryT] = Snapshot(state=state, memory=memory, status=status)
        self.live = not self.snapshot.finished
        self.path: list[PathStep] = []
        self.rows: list[tuple[StateT, EventT, StateT]] = []
        where = "" if state is machine.initial else f" in {state.name}"
        self.start = short(memory, 600) + where
        self.limit = rules.limit_for(state, memory)
        if coverage is not None:
            coverage.start(state)
        for inv in rules.memory_invariants:
            ok, why = _holds(inv.holds, memory)
            if not ok:
                raise self.fail("invariant", f"start memory breaks {inv.name!r}{why}")

    def fail(self, kind: ViolationKind, message: str) -> RunViolation:
        """A :class:`RunViolation` carrying this run's path."""
        return RunViolation(kind, message, self.start, tuple(self.path))

    def take(self, choose: Callable[[Effect[object]], object]) -> tuple[StateT, EventT, StateT] | None:
        """Take one transition (``choose`` supplies outcomes); the row, or None if the run ended."""
        rules = self.rules
        before = self.snapshot
        moved = advance(rules.machine, before, choose, rules.max_effects)
        fed = tuple(short(o) for o in moved.outcomes)
        if not isinstance(moved, Moved):
            self._stopped(moved.failure, fed)
            return None
        source, event, target = moved.row
        self.path.append(
            PathStep(
                index=len(self.path) + 1,
                source=source.name,
                event=event.name,
                target=target.name,
                outcomes=fed,
            )
        )
        if self.coverage is not None:
            self.coverage.took(moved.row, self.rows[-1] if self.rows else None)
        self.rows.append(moved.row)
        self.snapshot = moved.snapshot
        self.live = not moved.snapshot.finished
        self._check(before, moved)
        return moved.row

    def _stopped(self, failure: RunFailed[StateT, MemoryT] | None, fed: tuple[str, ...]) -> None:
        if failure is None:
            raise self.fail("run-failed", f"more than {self.rules.max_effects} effects without a transition")
        if isinstance(failure.reason, InvalidTransition):
            reason = failure.reason
            self.path.append(
                PathStep(
                    index=len(self.path) + 1,
                    source=reason.state.name,
                    event=reason.event.name,
                    target="<no row>",
                    outcomes=fed,
                )
            )
            raise self.fail("no-row", failure.describe())
        accept = self.rules.accept_failure
        if accept is not None and accept(failure):
            self.snapshot, self.live = failure.snapshot, False
            return
        raise self.fail("run-failed", failure.describe() + (f" (fed {'; '.join(fed)})" if fed else ""))

    def _check(self, before: Snapshot[StateT, MemoryT], moved: Moved[StateT, EventT, MemoryT]) -> None:
        rules = self.rules
        source, event, target = moved.row
        allowed = rules.declared.get(source)
        if allowed is not None and event not in allowed:
            names = ", ".join(sorted(e.name for e in allowed))
            raise self.fail("undeclared-event", f"{source.name} emitted {event.name}, declares only {names}")
        after = moved.snapshot.memory
        for inv in rules.memory_invariants:
            ok, why = _holds(inv.holds, after)
            if not ok:
                raise self.fail("invariant", f"memory invariant {inv.name!r} broken{why}")
        transition: Transition[StateT, MemoryT] = Transition(
            index=moved.snapshot.steps,
            source=source,
            event=event,
            target=target,
            before=before.memory,
            after=after,
            effects=moved.effects,
            outcomes=moved.outcomes,
        )
        for tinv in rules.transition_invariants:
            ok, why = _holds(tinv.holds, transition)
            if not ok:
                raise self.fail("invariant", f"transition invariant {tinv.name!r} broken{why}")
        if moved.snapshot.trace.rows[: len(before.trace)] != before.trace.rows:
            raise self.fail("trace", "the trace lost or rewrote an entry (it must be append-only)")
        if self.limit is not None and moved.snapshot.steps > self.limit:
            raise self.fail(
                "step-bound", f"{moved.snapshot.steps} transitions exceed the derived bound {self.limit}"
            )

    def close(self) -> None:
        """At a terminal state: check that stepping it again changes nothing."""
        if self.snapshot.finished:
            again = step(self.rules.machine, self.snapshot, 0.0)
            if not (isinstance(again, Failure) and again.failure().snapshot.memory == self.snapshot.memory):
                raise self.fail("terminal", f"stepping terminal {self.snapshot.state.name} changed the run")
