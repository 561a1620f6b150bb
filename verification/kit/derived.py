"""A Hypothesis state machine derived from a machine's transition table.

:func:`derive_state_machine` returns a ``RuleBasedStateMachine`` class that runs
the machine's real pure handlers through the engine's ``step``/``resume``, one
transition per rule, feeding generated outcomes to every effect a handler
requests, and now and then a failure of the effect where the state has a failure route
(:mod:`verification.kit.failures`). After every transition it checks, in this order:

1. the event is among those the source handler declares (or annotates);
2. the event has a row (otherwise the engine reports an invalid transition);
3. every memory invariant and transition invariant;
4. the trace is append-only;
5. the step bound: the transitions so far stay within the verifier's worst case
   (:func:`verification.step_bound`) for the run's budget.

When a run reaches a terminal state the next rule checks that stepping it
changes nothing and starts a fresh run, so terminals never stall Hypothesis.
A failure raises :class:`RunViolation` (an ``AssertionError``) whose message is the
shrunk run as a numbered list of ``STATE --EVENT--> STATE`` lines with the
outcomes fed on the way. :func:`check_machine` is the one-call runnable test.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs
from hypothesis import event as hypothesis_event
from hypothesis import seed
from hypothesis import settings as Settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    precondition,
    rule,
    run_state_machine_as_test,
)

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from verification.kit._constants import fixed_constants
from verification.kit._render import render
from verification.kit._runner import CheckedRun, PathStep, RunRules, RunViolation, ViolationKind
from verification.kit.coverage import CoverageRecorder, CoverageReport, row_label
from verification.kit.failures import FAILURE_ODDS, effect_failures, has_failure_route
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.outcomes import Outcomes, default_outcomes
from verification.kit.profiles import CI_SEED, kit_settings
from verification.kit.run_properties import RunProperty

__all__ = ["PathStep", "RunViolation", "Start", "ViolationKind", "check_machine", "derive_state_machine"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(repr=False)
class Start(Generic[StateT, MemoryT]):
    """Where a generated run begins; its repr keeps Hypothesis's reproduction readable."""

    state: StateT
    memory: MemoryT

    def __repr__(self) -> str:
        return f"Start({self.state.name}, {render(self.memory)})"


def _class_name(name: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in name).split()
    return "".join(w[:1].upper() + w[1:] for w in words or ["machine"]) + "Runs"


def derive_state_machine(
    machine: Machine[StateT, EventT, MemoryT],
    memories: st.SearchStrategy[MemoryT],
    *,
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
    outcomes: Outcomes | None = None,
    budget: Callable[[MemoryT], int] | None = None,
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
    coverage: CoverageRecorder[StateT, EventT, MemoryT] | None = None,
    entries: st.SearchStrategy[tuple[StateT, MemoryT]] | None = None,
    max_effects: int = 20,
    failures: bool = True,
    properties: Sequence[RunProperty[StateT, MemoryT]] = (),
) -> type[RuleBasedStateMachine]:
    """A ``RuleBasedStateMachine`` class that property-tests ``machine``.

    Args:
        machine: the machine under test; its real handlers run.
        memories: start memories (each run begins in the initial state with one).
        invariants: memory and transition invariants checked after every step.
        outcomes: strategies of effect outcomes (default: :func:`default_outcomes`).
        budget: how many visits to budgeted states a run from this memory may make
            (for the ReAct agent ``max_steps + 1``: every Planning visit spends a step
            but the last, which leaves); with the verifier's
            :func:`~verification.step_bound` it gives the bound checked after every step.
        accept_failure: which engine failures are legitimate ends of a run
            (default: none; any ``RunFailed`` is a violation).
        coverage: a recorder to collect states, rows and pairs hit.
        entries: extra starting points, ``(state, memory)`` pairs: runs that begin
            elsewhere than the initial state (e.g. with the corrupt memory a guard
            row exists for). A quarter of runs start from one when given.
        max_effects: effects one transition may request before the run counts as stuck.
        failures: deliver an ``EffectFailure`` (raised, timed out, unknown) for one effect in
            ``FAILURE_ODDS`` where the state has a failure route (see :func:`has_failure_route`).
        properties: run properties (:mod:`verification.kit.run_properties`) checked over every run.

    Example:
        >>> from verification.kit._demo import COUNTER, counters
        >>> CounterRuns = derive_state_machine(COUNTER, counters())
        >>> CounterRuns.__name__
        'CounterRuns'
    """
    registry = outcomes or default_outcomes()
    initial = memories.map(lambda m: Start(machine.initial, m))
    entered = None if entries is None else entries.map(lambda e: Start(e[0], e[1]))
    starts = initial if entered is None else st.one_of(initial, initial, initial, entered)
    rules = RunRules.of(
        machine,
        invariants,
        budget=budget,
        accept_failure=accept_failure,
        max_effects=max_effects,
        properties=properties,
    )

    class DerivedMachine(RuleBasedStateMachine):
        """Runs of the machine, one transition per rule."""

        def __init__(self) -> None:
            super().__init__()
            self.run: CheckedRun[StateT, EventT, MemoryT] | None = None

        @initialize(start=starts)
        def start(self, start: Start[StateT, MemoryT]) -> None:
            self.run = CheckedRun(rules, start.state, start.memory, coverage)

        @precondition(lambda self: self.run is not None and self.run.live)
        @rule(data=st.data())
        def take_step(self, data: st.DataObject) -> None:
            assert self.run is not None

            state = self.run.snapshot.state  # an effect's state: the run stays there until it moves

            def choose(effect: Effect[object]) -> object:
                if failures and has_failure_route(machine, state, effect):
                    odds = st.integers(0, FAILURE_ODDS - 1)
                    if data.draw(odds, label=f"fail {effect.summary()}?") == FAILURE_ODDS - 1:
                        return data.draw(effect_failures(effect), label=f"failure of {effect.summary()}")
                return data.draw(registry.strategy_for(effect), label=f"outcome of {effect.summary()}")

            row = self.run.take(choose)
            if row is not None:
                hypothesis_event(row_label((row[0].name, row[1].name, row[2].name)))

        @precondition(lambda self: self.run is not None and not self.run.live)
        @rule(start=starts)
        def start_again(self, start: Start[StateT, MemoryT]) -> None:
            assert self.run is not None
            self.run.close()
            self.run = CheckedRun(rules, start.state, start.memory, coverage)

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
    entries: st.SearchStrategy[tuple[StateT, MemoryT]] | None = None,
    settings: Settings | None = None,
    require_all_transitions: bool = True,
    max_effects: int = 20,
    failures: bool = True,
    properties: Sequence[RunProperty[StateT, MemoryT]] = (),
) -> CoverageReport:
    """Property-test ``machine`` now; return what the runs covered.

    Raises :class:`RunViolation` with a shrunk counterexample when a rule breaks, and
    :class:`~verification.kit.coverage.CoverageGap` when ``require_all_transitions``
    and some reachable row was never taken. ``settings`` defaults to
    :func:`~verification.kit.profiles.kit_settings` (``$HYPOTHESIS_PROFILE`` or ``ci``).
    Effect failures are generated where a state has a failure route unless ``failures=False``,
    so a failure row counts as reachable and must be taken like any other.

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
        entries=entries,
        max_effects=max_effects,
        failures=failures,
        properties=properties,
    )
    chosen = settings or kit_settings()
    if chosen.derandomize:  # the same runs on every Python: Hypothesis's own seed is not (see CI_SEED)
        derived = seed(CI_SEED)(derived)
        with fixed_constants():  # and whatever modules are loaded (see verification.kit._constants)
            run_state_machine_as_test(derived, settings=chosen)
    else:
        run_state_machine_as_test(derived, settings=chosen)
    report = recorder.report()
    return report.require_all_transitions() if require_all_transitions else report
