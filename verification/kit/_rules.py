"""Private: the rules the kit checks after each transition of a run, read from a machine once.

:class:`RunRules` holds them (declared events, invariants, run properties, the step bound,
which engine failures are legitimate ends) and judges a start memory (:meth:`RunRules.judge_start`),
a transition (:meth:`RunRules.judge`), an engine stop (:meth:`RunRules.judge_stop`) or the end of
a run (:meth:`RunRules.judge_end`) as a value: the first broken rule's kind and
message, in the order the kit documents. :class:`~verification.kit._runner.CheckedRun` (generated
and scripted runs) and the explorer (:mod:`verification.explore`) both ask it, so they mean
the same thing by a broken rule.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Generic, Literal, TypeVar

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import InvalidTransition, RunFailed
from agentsm_fn.core.machine import Machine
from verification.bound import StepBound
from verification.events import emittable_events
from verification.kit._drive import Moved
from verification.kit.invariants import MemoryInvariant, Transition, TransitionInvariant
from verification.kit.run_properties import Monitors, RunProperty, advance_all, end_all
from verification.verify import step_bound

__all__ = ["Broken", "RunRules", "ViolationKind", "holds"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")
T = TypeVar("T")

ViolationKind = Literal[
    "invariant",
    "property",
    "undeclared-event",
    "undeclared-effect",
    "no-row",
    "step-bound",
    "run-failed",
    "terminal",
    "trace",
]
"""What a :class:`RunViolation` is about."""

Broken = tuple[ViolationKind, str]
"""A broken rule: its kind and a message."""


def holds(predicate: Callable[[T], bool], value: T) -> tuple[bool, str]:
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
    effect_types: Mapping[StateT, frozenset[type[Effect[object]]]] = MappingProxyType({})
    """The effect types states declare they request (``effectful(..., effects=...)``)."""
    bound: StepBound | None = None
    properties: tuple[RunProperty[StateT, MemoryT], ...] = ()

    @classmethod
    def of(
        cls,
        machine: Machine[StateT, EventT, MemoryT],
        invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
        *,
        budget: Callable[[MemoryT], int] | None = None,
        accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
        max_effects: int = 20,
        properties: Sequence[RunProperty[StateT, MemoryT]] = (),
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
            effect_types=MappingProxyType(
                {s: h.effects for s, h in machine.handlers.items() if h.effects is not None}
            ),
            bound=step_bound(machine),
            properties=tuple(properties),
        )

    def limit_for(self, state: StateT, memory: MemoryT) -> int | None:
        """The most transitions a run from ``state`` with ``memory`` may take, when known."""
        if self.bound is None or state is not self.machine.initial:
            return None
        if not self.machine.budgeted:
            return self.bound.max_transitions(0)
        return None if self.budget is None else self.bound.max_transitions(self.budget(memory))

    def judge_start(self, memory: MemoryT) -> Broken | None:
        """The memory invariant a run's start memory breaks, if any."""
        for inv in self.memory_invariants:
            ok, why = holds(inv.holds, memory)
            if not ok:
                return "invariant", f"start memory breaks {inv.name!r}{why}"
        return None

    def judge(
        self,
        before: MemoryT,
        moved: Moved[StateT, EventT, MemoryT],
        limit: int | None,
        monitors: Monitors,
    ) -> tuple[Monitors, Broken | None]:
        """The rules one transition breaks, in order (the first), and the run properties' next monitors."""
        source, event, target = moved.row
        allowed = self.declared.get(source)
        if allowed is not None and event not in allowed:
            names = ", ".join(sorted(e.name for e in allowed))
            return monitors, (
                "undeclared-event",
                f"{source.name} emitted {event.name}, declares only {names}",
            )
        requested = self.effect_types.get(source)
        stray = [e for e in moved.effects if requested is not None and not isinstance(e, tuple(requested))]
        if stray:
            names = ", ".join(sorted(t.__name__ for t in requested or ()))
            asked = f"{source.name} requested {stray[0].summary()}, declares only {names}"
            return monitors, ("undeclared-effect", asked)
        after = moved.snapshot.memory
        for inv in self.memory_invariants:
            ok, why = holds(inv.holds, after)
            if not ok:
                return monitors, ("invariant", f"memory invariant {inv.name!r} broken{why}")
        if self.transition_invariants or self.properties:
            transition: Transition[StateT, MemoryT] = Transition(
                index=moved.snapshot.steps,
                source=source,
                event=event,
                target=target,
                before=before,
                after=after,
                effects=moved.effects,
                outcomes=moved.outcomes,
            )
            for tinv in self.transition_invariants:
                ok, why = holds(tinv.holds, transition)
                if not ok:
                    return monitors, ("invariant", f"transition invariant {tinv.name!r} broken{why}")
            monitors, problem = advance_all(self.properties, monitors, transition)
            if problem is not None:
                return monitors, ("property", problem)
        if limit is not None and moved.snapshot.steps > limit:
            return monitors, (
                "step-bound",
                f"{moved.snapshot.steps} transitions exceed the derived bound {limit}",
            )
        return monitors, None

    def judge_end(self, monitors: Monitors) -> Broken | None:
        """The run property an ended run (terminal, or an accepted failure) breaks, if any."""
        problem = end_all(self.properties, monitors)
        return None if problem is None else ("property", problem)

    def judge_stop(self, failure: RunFailed[StateT, MemoryT] | None, fed: tuple[str, ...]) -> Broken | None:
        """The rule a run stopped by the engine breaks, or None when ``accept_failure`` accepts it."""
        if failure is None:
            return "run-failed", f"more than {self.max_effects} effects without a transition"
        if isinstance(failure.reason, InvalidTransition):
            return "no-row", failure.describe()
        if self.accept_failure is not None and self.accept_failure(failure):
            return None
        return "run-failed", failure.describe() + (f" (fed {'; '.join(fed)})" if fed else "")
