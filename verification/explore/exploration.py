"""Exhaustive exploration: run the real handlers on every combination of outcomes, breadth first.

:func:`explore` is what a model checker such as TLC does, over a machine's pure handlers:
from each start memory it takes every transition the handlers can take when each effect
they request is answered with each of its possible outcomes (a finite set per effect type:
the :class:`~verification.kit.Outcomes` registry's examples, else its strategy enumerated,
plus a raised, a timed-out and an unknown failure wherever the state has a failure route,
as the kit feeds them). Each distinct ``(state, key(memory))`` (and run-property monitor
state) is visited once; ``key`` maps a memory to what matters, as TLC's VIEW does, for
memories that carry history. Every edge is judged by the kit's rules (declared events,
rows, memory and transition invariants, run properties, the step bound); handler
exceptions, faults and invalid transitions are violations too. The result is an
:class:`Exploration`: the figures, and the shortest run that breaks a rule, if one does.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar, cast

import attrs

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from verification.explore._children import AnyMachine, ChildOutcomes
from verification.explore._search import Search
from verification.explore._successors import Choices
from verification.explore.counterexample import Counterexample, counterexample
from verification.kit._rules import RunRules
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.outcomes import Outcomes, default_outcomes
from verification.kit.run_properties import RunProperty

__all__ = ["Counterexample", "Exploration", "explore"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Exploration(Generic[StateT, EventT, MemoryT]):
    """What :func:`explore` found: the figures, and a counterexample when a rule broke.

    ``states`` counts distinct ``(state, key(memory), monitors)`` nodes, ``edges`` the
    transitions taken between them, ``depth`` the longest shortest run; ``exhausted`` is True
    when every node reachable from the starts was expanded (no depth or state limit cut it).
    """

    machine: str
    states: int
    edges: int
    depth: int
    exhausted: bool
    counterexample: Counterexample[StateT, EventT, MemoryT] | None = None
    children: tuple[Exploration[enum.Enum, enum.Enum, object], ...] = ()
    """The explorations of the children the machine delegates to, one per program and start memory,
    each made before the parent was fed its outcomes (``exhausted`` counts theirs too)."""

    @property
    def ok(self) -> bool:
        """No rule broke, here or in a child."""
        return self.counterexample is None and all(c.ok for c in self.children)

    def summary(self) -> str:
        """``N distinct states, M edges, depth D, exhausted: yes|no``, the children's, and a broken rule."""
        line = (
            f"{self.machine}: {self.states:,} distinct states, {self.edges:,} edges, depth {self.depth}, "
            f"exhausted: {'yes' if self.exhausted else 'no'}"
        )
        if self.children:
            names = ", ".join(dict.fromkeys(c.machine for c in self.children))
            states = sum(c.states for c in self.children)
            line += f"\n  children: {len(self.children)} explored first ({names}), {states:,} distinct states"
        broken = next((c for c in self.children if not c.ok), None)
        if broken is not None:
            line += "\n  a child broke a rule: " + broken.summary().replace("\n", "\n  ")
        if self.counterexample is None:
            return line
        return f"{line}\n{self.counterexample.render()}"


def explore(
    machine: Machine[StateT, EventT, MemoryT],
    starts: Iterable[MemoryT],
    outcomes: Outcomes | None = None,
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
    *,
    properties: Sequence[RunProperty[StateT, MemoryT]] = (),
    depth: int | None = None,
    key: Callable[[MemoryT], Hashable] | None = None,
    budget: Callable[[MemoryT], int] | None = None,
    max_effects: int = 20,
    max_states: int | None = None,
    entries: Iterable[tuple[StateT, MemoryT]] = (),
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
) -> Exploration[StateT, EventT, MemoryT]:
    """Explore ``machine`` breadth first from ``starts`` (memories in its initial state).

    Args:
        machine: the machine; its real handlers run through the engine's ``step``/``resume``.
        starts: start memories.
        outcomes: each effect's outcomes (default: :func:`~verification.kit.default_outcomes`);
            an effect type's ``examples`` are its value list, else its strategy is enumerated.
        invariants: memory and transition invariants, checked at every edge.
        properties: run properties (:mod:`verification.kit.run_properties`).
        depth: the most transitions a run may take (None: explore to exhaustion).
        key: what of a memory decides whether two nodes are the same (default: all of it).
        budget: the kit's budget (visits to budgeted states a run may make), for the step bound.
        max_effects: effects one transition may request before the run counts as stuck.
        max_states: stop after this many distinct states (the result is not exhausted).
        entries: more starts, ``(state, memory)`` pairs elsewhere than the initial state (as the
            kit's ``entries=``: e.g. the corrupt memory a guard row exists for).
        accept_failure: which engine failures are legitimate ends of a run (default: none).

    Example:
        >>> from verification.kit import Outcomes
        >>> from verification.kit._demo import COUNTER, Roll, Tally
        >>> dice = Outcomes().on(Roll, lambda e: None, examples=lambda e: (0, 1, 6))
        >>> print(explore(COUNTER, [Tally(limit=2)], dice).summary())
        counter: 13 distinct states, 13 edges, depth 4, exhausted: yes
    """
    rules = RunRules.of(
        machine,
        invariants,
        budget=budget,
        accept_failure=accept_failure,
        max_effects=max_effects,
        properties=properties,
    )
    seen = cast(AnyMachine, machine)
    children = ChildOutcomes(seen, outcomes or default_outcomes(), _explore_child, (id(seen),), max_states)
    search = Search(rules, Choices(machine, children.registry()), key)
    begun = itertools.chain(((machine.initial, m) for m in starts), entries)
    found = search.run(begun, depth, max_states)
    explored = cast(tuple[Exploration[enum.Enum, enum.Enum, object], ...], children.explorations())
    return Exploration(
        machine=machine.name,
        states=len(search.parent),
        edges=search.edges,
        depth=search.deepest,
        exhausted=found is None
        and not search.cut
        and not children.cut
        and all(c.exhausted for c in explored),
        counterexample=None if found is None else counterexample(search, found, rules),
        children=explored,
    )


def _explore_child(
    machine: AnyMachine, memory: object, outcomes: Outcomes, stack: tuple[int, ...], max_states: int | None
) -> tuple[Exploration[enum.Enum, enum.Enum, object], tuple[tuple[enum.Enum, object], ...]]:
    """Explore a child from ``memory`` (its children first): the exploration, each terminal's first memory."""
    rules = RunRules.of(machine, ())
    children = ChildOutcomes(machine, outcomes, _explore_child, stack, max_states)
    search = Search(rules, Choices(machine, children.registry()), None)
    found = search.run([(machine.initial, memory)], None, max_states)
    explored = cast(tuple[Exploration[enum.Enum, enum.Enum, object], ...], children.explorations())
    ends: dict[enum.Enum, object] = {}
    for state, reached in zip(search.state, search.memory, strict=True):
        if state in machine.terminals:
            ends.setdefault(state, reached)
    exploration: Exploration[enum.Enum, enum.Enum, object] = Exploration(
        machine=machine.name or "<child>",
        states=len(search.parent),
        edges=search.edges,
        depth=search.deepest,
        exhausted=found is None
        and not search.cut
        and not children.cut
        and all(c.exhausted for c in explored),
        counterexample=None if found is None else counterexample(search, found, rules),
        children=explored,
    )
    return exploration, tuple(ends.items())
