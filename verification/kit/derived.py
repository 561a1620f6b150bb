"""A Hypothesis state machine derived from a machine's transition table.

:func:`derive_state_machine` returns a ``RuleBasedStateMachine`` class that runs
the machine's real pure handlers through the engine's ``step``/``resume``, one
transition per rule, feeding generated outcomes to every effect a handler
requests. After every transition it checks, in this order:

1. the event is among those the source handler declares (or annotates);
2. the event has a row (otherwise the engine reports an invalid transition);
3. every memory invariant and transition invariant;
4. the step bound: the transitions so far stay within the worst case derived
   from the graph (budgeted states) and the run's budget.

When a run reaches a terminal state the next rule checks that stepping it
changes nothing and starts a fresh run, so terminals never stall Hypothesis.
A failure raises :class:`Violation` (an ``AssertionError``) whose message is the
shrunk run as a numbered list of ``STATE --EVENT--> STATE`` lines with the
outcomes fed on the way. :func:`check_machine` is the one-call runnable test.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar

import attrs
from hypothesis import event as hypothesis_event
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import begin, step
from agentsm_fn.core.failures import InvalidTransition, RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from verification.kit._drive import Moved, advance
from verification.kit._graph import emittable_events, transition_bound
from verification.kit.coverage import CoverageRecorder, CoverageReport, row_label
from verification.kit.invariants import MemoryInvariant, Transition, TransitionInvariant
from verification.kit.outcomes import Outcomes, default_outcomes
from verification.kit.profiles import kit_settings

__all__ = ["PathStep", "Violation", "ViolationKind", "check_machine", "derive_state_machine"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
T = TypeVar("T")

ViolationKind = Literal["invariant", "undeclared-event", "no-row", "step-bound", "run-failed", "terminal"]
"""What a :class:`Violation` is about."""


def _short(value: object, width: int = 110) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 1] + "…"


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


class Violation(AssertionError):
    """A generated run broke a rule; ``path`` is the run up to and including the bad step."""

    def __init__(self, kind: ViolationKind, message: str, start: str, path: tuple[PathStep, ...]) -> None:
        self.kind = kind
        self.path = path
        lines = [f"[{kind}] {message}", f"run from memory {start}:"]
        lines += [f"  {p.render()}" for p in path] or ["  (no transition yet)"]
        super().__init__("\n".join(lines))


def _class_name(name: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in name).split()
    return "".join(w[:1].upper() + w[1:] for w in words or ["machine"]) + "Runs"


def _split(
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]],
) -> tuple[tuple[MemoryInvariant[MemoryT], ...], tuple[TransitionInvariant[StateT, MemoryT], ...]]:
    memory = tuple(i for i in invariants if isinstance(i, MemoryInvariant))
    transition = tuple(i for i in invariants if isinstance(i, TransitionInvariant))
    return memory, transition


def _holds(predicate: Callable[[T], bool], value: T) -> tuple[bool, str]:
    try:
        return bool(predicate(value)), ""
    except Exception as exc:  # a predicate that raises is a violated predicate
        return False, f" (the predicate raised {type(exc).__name__}: {exc})"


def derive_state_machine(
    machine: Machine[StateT, EventT, MemoryT],
    memories: st.SearchStrategy[MemoryT],
    *,
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
    outcomes: Outcomes | None = None,
    budget: Callable[[MemoryT], int] | None = None,
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
    coverage: CoverageRecorder[StateT, EventT, MemoryT] | None = None,
    max_effects: int = 20,
) -> type[RuleBasedStateMachine]:
    """A ``RuleBasedStateMachine`` class that property-tests ``machine``.

    Args:
        machine: the machine under test; its real handlers run.
        memories: start memories (each run begins in the initial state with one).
        invariants: memory and transition invariants checked after every step.
        outcomes: strategies of effect outcomes (default: :func:`default_outcomes`).
        budget: the run's budget units (e.g. ``max_steps``); with the machine's
            budgeted states it yields the step bound checked after every step.
        accept_failure: which engine failures are legitimate ends of a run
            (default: none; any ``RunFailed`` is a violation).
        coverage: a recorder to collect states, rows and pairs hit.
        max_effects: effects one transition may request before the run counts as stuck.

    Example:
        >>> from verification.kit._demo import COUNTER, counters
        >>> CounterRuns = derive_state_machine(COUNTER, counters())
        >>> CounterRuns.__name__
        'CounterRuns'
    """
    registry = outcomes or default_outcomes()
    memory_invs, transition_invs = _split(invariants)
    bound = transition_bound(machine)
    declared = {s: emittable_events(machine, s) for s in machine.states}

    def limit_for(memory: MemoryT) -> int | None:
        if bound is None:
            return None
        if not machine.budgeted:
            return bound.prefix
        return None if budget is None else bound.transitions(budget(memory))

    class DerivedMachine(RuleBasedStateMachine):
        """Runs of the machine, one transition per rule."""

        def __init__(self) -> None:
            super().__init__()
            self.snapshot: Snapshot[StateT, MemoryT] | None = None
            self.live = False
            self.path: list[PathStep] = []
            self.previous: tuple[StateT, EventT, StateT] | None = None
            self.start_memory = ""
            self.limit: int | None = None

        def fail(self, kind: ViolationKind, message: str) -> Violation:
            return Violation(kind, message, self.start_memory, tuple(self.path))

        def begin_run(self, memory: MemoryT) -> None:
            self.snapshot = begin(machine, memory)
            self.live = not self.snapshot.finished
            self.path, self.previous = [], None
            self.start_memory = _short(memory, 300)
            self.limit = limit_for(memory)
            if coverage is not None:
                coverage.start(machine.initial)
            for inv in memory_invs:
                ok, why = _holds(inv.holds, memory)
                if not ok:
                    raise self.fail("invariant", f"start memory breaks {inv.name!r}{why}")

        @initialize(memory=memories)
        def start(self, memory: MemoryT) -> None:
            self.begin_run(memory)

        @precondition(lambda self: self.live)
        @rule(data=st.data())
        def take_step(self, data: st.DataObject) -> None:
            assert self.snapshot is not None
            before = self.snapshot

            def choose(effect: Effect[object]) -> object:
                return data.draw(registry.strategy_for(effect), label=f"outcome of {effect.summary()}")

            moved = advance(machine, before, choose, max_effects)
            fed = tuple(_short(o) for o in moved.outcomes)
            if not isinstance(moved, Moved):
                self.on_stop(moved.failure, fed)
                return
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
            hypothesis_event(row_label((source.name, event.name, target.name)))
            if coverage is not None:
                coverage.took(moved.row, self.previous)
            self.previous = moved.row
            self.snapshot = moved.snapshot
            self.live = not moved.snapshot.finished
            self.check(before, moved)

        def on_stop(self, failure: RunFailed[StateT, MemoryT] | None, fed: tuple[str, ...]) -> None:
            if failure is None:
                raise self.fail("run-failed", f"more than {max_effects} effects without a transition")
            if isinstance(failure.reason, InvalidTransition):
                self.path.append(
                    PathStep(
                        index=len(self.path) + 1,
                        source=failure.reason.state.name,
                        event=failure.reason.event.name,
                        target="<no row>",
                        outcomes=fed,
                    )
                )
                raise self.fail("no-row", failure.describe())
            if accept_failure is not None and accept_failure(failure):
                self.snapshot, self.live = failure.snapshot, False
                return
            raise self.fail("run-failed", failure.describe() + (f" (fed {'; '.join(fed)})" if fed else ""))

        def check(self, before: Snapshot[StateT, MemoryT], moved: Moved[StateT, EventT, MemoryT]) -> None:
            source, event, target = moved.row
            allowed = declared.get(source)
            if allowed is not None and event not in allowed:
                names = ", ".join(sorted(e.name for e in allowed))
                raise self.fail(
                    "undeclared-event", f"{source.name} emitted {event.name}, declares only {names}"
                )
            after = moved.snapshot.memory
            for inv in memory_invs:
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
                outcomes=moved.outcomes,
            )
            for tinv in transition_invs:
                ok, why = _holds(tinv.holds, transition)
                if not ok:
                    raise self.fail("invariant", f"transition invariant {tinv.name!r} broken{why}")
            if self.limit is not None and moved.snapshot.steps > self.limit:
                raise self.fail(
                    "step-bound", f"{moved.snapshot.steps} transitions exceed the derived bound {self.limit}"
                )

        @precondition(lambda self: self.snapshot is not None and not self.live)
        @rule(memory=memories)
        def start_again(self, memory: MemoryT) -> None:
            assert self.snapshot is not None
            if self.snapshot.finished:
                again = step(machine, self.snapshot, 0.0)
                unchanged = (
                    isinstance(again, Failure) and again.failure().snapshot.memory == self.snapshot.memory
                )
                if not unchanged:
                    raise self.fail(
                        "terminal", f"stepping terminal {self.snapshot.state.name} changed the run"
                    )
            self.begin_run(memory)

    DerivedMachine.__name__ = DerivedMachine.__qualname__ = _class_name(machine.name)
    return DerivedMachine


def check_machine(
    machine: Machine[StateT, EventT, MemoryT],
    memories: st.SearchStrategy[MemoryT],
    *,
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
    outcomes: Outcomes | None = None,
    budget: Callable[[MemoryT], int] | None = None,
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
    settings: Settings | None = None,
    require_all_transitions: bool = True,
    max_effects: int = 20,
) -> CoverageReport:
    """Property-test ``machine`` now; return what the runs covered.

    Raises :class:`Violation` with a shrunk counterexample when a rule breaks, and
    :class:`~verification.kit.coverage.CoverageGap` when ``require_all_transitions``
    and some reachable row was never taken. ``settings`` defaults to
    :func:`~verification.kit.profiles.kit_settings` (``$HYPOTHESIS_PROFILE`` or ``ci``).

    Example:
        >>> from verification.kit._demo import COUNTER, counters
        >>> report = check_machine(COUNTER, counters(), settings=kit_settings("ci", max_examples=30))
        >>> report.row_coverage
        1.0
    """
    recorder: CoverageRecorder[StateT, EventT, MemoryT] = CoverageRecorder(machine)
    derived = derive_state_machine(
        machine,
        memories,
        invariants=invariants,
        outcomes=outcomes,
        budget=budget,
        accept_failure=accept_failure,
        coverage=recorder,
        max_effects=max_effects,
    )
    run_state_machine_as_test(derived, settings=settings or kit_settings())
    report = recorder.report()
    return report.require_all_transitions() if require_all_transitions else report
