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
import textwrap
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Generic, TypeVar

import attrs

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from verification.explore._code import Source
from verification.explore._search import Found, Search
from verification.explore._successors import Choices
from verification.kit._render import short
from verification.kit._rules import RunRules, ViolationKind
from verification.kit._runner import PathStep, RunViolation
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.outcomes import Outcomes, default_outcomes
from verification.kit.run_properties import RunProperty
from verification.kit.scripts import ScriptedCase, run_case

__all__ = ["Counterexample", "Exploration", "explore"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Counterexample(Generic[StateT, EventT, MemoryT]):
    """The shortest run found that breaks a rule: what broke, and the run as a replayable script.

    ``case`` is a :class:`~verification.kit.ScriptedCase` (start, rows, outcomes fed in order):
    :func:`~verification.kit.run_case` replays it with the engine and raises the same
    :class:`~verification.kit.RunViolation`. ``path`` is the run as the kit prints it.
    """

    kind: ViolationKind
    message: str
    case: ScriptedCase[StateT, EventT, MemoryT]
    path: tuple[PathStep, ...]
    reproduced: bool
    """Whether replaying ``case`` with the engine broke the same rule (always, unless the explorer errs)."""
    initial: bool = True
    """Whether the run starts in the machine's initial state (else in an ``entries=`` state)."""

    def violation(self) -> RunViolation:
        """The :class:`~verification.kit.RunViolation` this run raises (message included)."""
        where = "" if self.initial else f" in {self.case.state.name}"
        return RunViolation(self.kind, self.message, short(self.case.memory, 600) + where, self.path)

    def render(self) -> str:
        """The broken rule and the run, one numbered ``STATE --EVENT--> STATE`` line per step."""
        return str(self.violation())

    def as_test(
        self,
        machine: str,
        *,
        invariants: str | None = None,
        properties: str | None = None,
        budget: str | None = None,
        name: str = "test_explored_counterexample",
    ) -> str:
        """A pytest test that replays this run with the engine and fails as it did.

        Each argument names where to import from, ``module:attribute`` (the machine, and the
        invariants, run properties and budget the exploration was given).
        """
        code = Source()
        code.imports.add(("verification.kit", "ScriptedCase"))
        code.imports.add(("verification.kit", "run_case"))
        rows = [
            f"            ({code.value(s)}, {code.value(e)}, {code.value(t)})," for s, e, t in self.case.rows
        ]
        fields = [
            f"        state={code.value(self.case.state)},",
            f"        memory={code.value(self.case.memory)},",
            "        rows=(",
            *rows,
            "        ),",
            f"        outcomes={code.value(self.case.outcomes)},",
        ]
        extra = [code.spec(invariants)] if invariants else []
        extra += [f"properties={code.spec(properties)}"] if properties else []
        extra += [f"budget={code.spec(budget)}"] if budget else []
        call = ", ".join([code.spec(machine), "case", *extra])
        doubt = [f"    # written with repr(), check it: {u}" for u in code.unsure]
        said = textwrap.wrap(f"[{self.kind}] {self.message.splitlines()[0]}", 100)
        paths = [
            f"# {folder}/ must be on sys.path (pytest's pythonpath setting)"
            for folder in sorted(code.folders)
        ]
        return "\n".join(
            [
                *paths,
                *code.import_lines(),
                "",
                "",
                f"def {name}() -> None:",
                '    """The shortest run exploration found that breaks a rule (it raises RunViolation)."""',
                *(f"    # {line}" for line in said),
                *doubt,
                "    case = ScriptedCase(",
                *fields,
                "    )",
                f"    run_case({call})",
                "",
            ]
        )


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

    @property
    def ok(self) -> bool:
        """No rule broke."""
        return self.counterexample is None

    def summary(self) -> str:
        """``N distinct states, M edges, depth D, exhausted: yes|no`` (and the broken rule, if any)."""
        line = (
            f"{self.machine}: {self.states:,} distinct states, {self.edges:,} edges, depth {self.depth}, "
            f"exhausted: {'yes' if self.exhausted else 'no'}"
        )
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
    search = Search(rules, Choices(machine, outcomes or default_outcomes()), key)
    begun = itertools.chain(((machine.initial, m) for m in starts), entries)
    found = search.run(begun, depth, max_states)
    counterexample = None if found is None else _counterexample(search, found, rules)
    return Exploration(
        machine=machine.name,
        states=len(search.parent),
        edges=search.edges,
        depth=search.deepest,
        exhausted=found is None and not search.cut,
        counterexample=counterexample,
    )


_Step = tuple[StateT, EventT | None, StateT, tuple[object, ...]]


def _counterexample(
    search: Search[StateT, EventT, MemoryT],
    found: Found[StateT, EventT],
    rules: RunRules[StateT, EventT, MemoryT],
) -> Counterexample[StateT, EventT, MemoryT]:
    """The run to ``found`` as a script, and its path as the engine's replay of it prints it."""
    nodes = search.chain(found.node)
    steps: list[_Step[StateT, EventT]] = [
        (search.state[b], search.event[a], search.state[a], search.fed[a])
        for b, a in itertools.pairwise(nodes)
    ]
    if found.event is not None and found.target is not None:
        steps.append((search.state[found.node], found.event, found.target, found.outcomes))
    outcomes = [o for *_, given in steps for o in given]
    if found.event is None:  # the failing step took no row: its outcomes end the script
        outcomes.extend(found.outcomes)
    case = ScriptedCase(
        state=search.state[nodes[0]],
        memory=search.memory[nodes[0]],
        rows=tuple((s, e, t) for s, e, t, _ in steps if e is not None),
        outcomes=tuple(outcomes),
    )
    kind, message = found.broken
    invariants: list[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = [
        *rules.memory_invariants,
        *rules.transition_invariants,
    ]
    path, same = _own_path(steps), False
    try:
        run_case(
            rules.machine,
            case,
            invariants,
            budget=rules.budget,
            properties=rules.properties,
            accept_failure=rules.accept_failure,
        )
    except RunViolation as replayed:
        same = (replayed.kind, str(replayed).splitlines()[0]) == (kind, f"[{kind}] {message.splitlines()[0]}")
        path = replayed.path if same else path
    except AssertionError:
        pass
    initial = case.state is rules.machine.initial
    return Counterexample(kind=kind, message=message, case=case, path=path, reproduced=same, initial=initial)


def _own_path(steps: list[_Step[StateT, EventT]]) -> tuple[PathStep, ...]:
    """The run as the explorer took it (shown only if the engine's replay disagrees: a bug to report)."""
    return tuple(
        PathStep(
            index=n,
            source=s.name,
            event="?" if e is None else e.name,
            target=t.name,
            outcomes=tuple(short(o) for o in fed),
        )
        for n, (s, e, t, fed) in enumerate(steps, start=1)
    )
