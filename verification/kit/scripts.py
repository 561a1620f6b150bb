"""The deterministic suite: covering paths turned into scripted runs, one pytest case each.

:func:`covering_cases` computes the fewest runs that take every reachable row
(:func:`~verification.kit.paths.covering_paths`) and *scripts* each one: it
searches, depth first, for a start memory (from the candidates you give) and a
sequence of outcomes (from each effect's representative examples in the
:class:`~verification.kit.outcomes.Outcomes` registry, then, where the state has a
failure route, one failure of each kind) that make the real handlers
take exactly those rows. A row that blocks every attempt is set aside, the paths
are recomputed without it, and it is then tried alone from the ``entries`` you give
(a state and a memory to start in). What cannot be scripted is reported in
:attr:`CoveringSuite.unscripted`, never silently dropped.

Each :class:`ScriptedCase` is a plain value: parametrize a test with
``suite.cases`` (ids from ``suite.ids()``) and call :func:`run_case`, which replays
it through the same checks as the derived state machine.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Sequence
from typing import Generic, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.engine import resume, step
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from verification.kit._graph import reachable_rows
from verification.kit._runner import CheckedRun, RunRules
from verification.kit.failures import failure_examples, has_failure_route
from verification.kit.invariants import MemoryInvariant, TransitionInvariant
from verification.kit.outcomes import Outcomes, default_outcomes
from verification.kit.paths import covering_paths, shortest_finish
from verification.kit.run_properties import RunProperty

__all__ = ["CoveringSuite", "ScriptedCase", "covering_cases", "run_case"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

_Row = tuple[StateT, EventT, StateT]


@attrs.frozen(kw_only=True)
class ScriptedCase(Generic[StateT, EventT, MemoryT]):
    """A run that takes ``rows`` from ``state`` with ``memory`` when fed ``outcomes`` in order."""

    state: StateT
    memory: MemoryT
    rows: tuple[tuple[StateT, EventT, StateT], ...]
    outcomes: tuple[object, ...]

    @property
    def id(self) -> str:
        """``State: EVENT EVENT ...``, for pytest ids."""
        return f"{self.state.name}: " + " ".join(e.name for _, e, _ in self.rows)


@attrs.frozen(kw_only=True)
class CoveringSuite(Generic[StateT, EventT, MemoryT]):
    """Scripted cases that together take every row they could; the rows they could not."""

    cases: tuple[ScriptedCase[StateT, EventT, MemoryT], ...]
    unscripted: tuple[tuple[StateT, EventT, StateT], ...] = ()

    def ids(self) -> tuple[str, ...]:
        """One id per case."""
        return tuple(c.id for c in self.cases)

    @property
    def rows(self) -> frozenset[tuple[StateT, EventT, StateT]]:
        """Every row some case takes."""
        return frozenset(r for c in self.cases for r in c.rows)


class _Search(Generic[StateT, EventT, MemoryT]):
    """Depth-first search for outcomes that make the handlers follow a path."""

    def __init__(self, machine: Machine[StateT, EventT, MemoryT], outcomes: Outcomes, effort: int) -> None:
        self.machine = machine
        self.outcomes = outcomes
        self.effort = effort
        self.furthest = 0

    def follow(
        self, snap: Snapshot[StateT, MemoryT], rows: Sequence[_Row[StateT, EventT]], at: int
    ) -> list[object] | None:
        self.furthest = max(self.furthest, at)
        if at == len(rows):
            return [] if snap.finished else None
        if snap.status is Status.AWAITING:
            return self._feed(snap, rows, at)
        result = step(self.machine, snap, float(at))
        return None if isinstance(result, Failure) else self._after(result.unwrap(), rows, at)

    def _after(
        self, snap: Snapshot[StateT, MemoryT], rows: Sequence[_Row[StateT, EventT]], at: int
    ) -> list[object] | None:
        if snap.status is Status.AWAITING:
            return self._feed(snap, rows, at)
        entry = snap.trace[len(snap.trace) - 1]
        source, event, target = rows[at]
        if (entry.state, entry.event, entry.target) != (source.name, event.name, target.name):
            return None
        return self.follow(snap, rows, at + 1)

    def _feed(
        self, snap: Snapshot[StateT, MemoryT], rows: Sequence[_Row[StateT, EventT]], at: int
    ) -> list[object] | None:
        effect: Effect[object] | None = snap.pending
        assert effect is not None
        candidates = self.outcomes.examples_for(effect)
        if has_failure_route(self.machine, snap.state, effect):
            candidates += failure_examples(effect)
        for outcome in candidates:
            self.effort -= 1
            if self.effort < 0:
                return None
            result = resume(self.machine, snap, outcome, float(at))
            if isinstance(result, Failure):
                continue
            rest = self._after(result.unwrap(), rows, at)
            if rest is not None:
                return [outcome, *rest]
        return None


def _script(
    machine: Machine[StateT, EventT, MemoryT],
    starts: Sequence[tuple[StateT, MemoryT]],
    rows: tuple[_Row[StateT, EventT], ...],
    outcomes: Outcomes,
    effort: int,
) -> tuple[ScriptedCase[StateT, EventT, MemoryT] | None, int]:
    """Script ``rows`` from one of ``starts``; else None and how far the best attempt got."""
    furthest = 0
    for state, memory in starts:
        if not rows or rows[0][0] is not state:
            continue
        search = _Search(machine, outcomes, effort)
        status = Status.FINISHED if state in machine.terminals else Status.READY
        found = search.follow(Snapshot(state=state, memory=memory, status=status), rows, 0)
        if found is not None:
            return ScriptedCase(state=state, memory=memory, rows=rows, outcomes=tuple(found)), len(rows)
        furthest = max(furthest, search.furthest)
    return None, furthest


def covering_cases(
    machine: Machine[StateT, EventT, MemoryT],
    memories: Sequence[MemoryT],
    outcomes: Outcomes | None = None,
    *,
    entries: Sequence[tuple[StateT, MemoryT]] = (),
    effort: int = 20_000,
    rows: Collection[_Row[StateT, EventT]] | None = None,
) -> CoveringSuite[StateT, EventT, MemoryT]:
    """Scripted runs that take every reachable row (see the module docstring).

    ``memories`` are candidate start memories for runs from the initial state;
    ``effort`` bounds the outcomes tried per path and start; ``rows`` (all by default)
    are the rows to take, where a machine's rows split into parts whose runs need starts of
    their own (a run may still pass through the others).

    Example:
        >>> from verification.kit._demo import COUNTER, Roll, Tally
        >>> rolls = Outcomes().on(Roll, lambda e: None, examples=lambda e: (0, 3))
        >>> suite = covering_cases(COUNTER, [Tally(limit=1)], rolls)
        >>> suite.ids(), suite.unscripted
        (('IDLE: START ROLLED ENOUGH', 'IDLE: START ZERO'), ())
    """
    registry = outcomes or default_outcomes()
    starts = [(machine.initial, m) for m in memories]
    wanted = None if rows is None else frozenset(rows)
    skipped: list[_Row[StateT, EventT]] = (
        [] if wanted is None else [r for r in reachable_rows(machine) if r not in wanted]
    )
    cases: list[ScriptedCase[StateT, EventT, MemoryT]] = []
    while True:
        plan = covering_paths(machine, skipped)
        cases, blocked = [], None
        for path in plan.paths:
            case, furthest = _script(machine, starts, path, registry, effort)
            if case is None:
                # Set aside the row where the best attempt stopped; a path may still pass
                # through a row set aside before (to reach rows after it), and then the next
                # row that is not set aside yet goes, else the last one before it (else the
                # loop would stop, cases missing).
                at = min(furthest, len(path) - 1)
                later = (r for r in path[at:] if r not in skipped)
                blocked = next(later, next((r for r in reversed(path[:at]) if r not in skipped), path[at]))
                break
            cases.append(case)
        if blocked is None or blocked in skipped:
            break
        skipped.append(blocked)
    taken = {r for c in cases for r in c.rows}
    unscripted: list[_Row[StateT, EventT]] = []
    for row in reachable_rows(machine):  # those no path took (set aside, or on no path)
        if row in taken or (wanted is not None and row not in wanted):
            continue
        finish = shortest_finish(machine, row[2])
        case = None if finish is None else _script(machine, entries, (row, *finish), registry, effort)[0]
        if case is None:
            unscripted.append(row)
        else:
            cases.append(case)
            taken |= set(case.rows)
    return CoveringSuite(cases=tuple(cases), unscripted=tuple(unscripted))


def run_case(
    machine: Machine[StateT, EventT, MemoryT],
    case: ScriptedCase[StateT, EventT, MemoryT],
    invariants: Sequence[MemoryInvariant[MemoryT] | TransitionInvariant[StateT, MemoryT]] = (),
    *,
    budget: Callable[[MemoryT], int] | None = None,
    properties: Sequence[RunProperty[StateT, MemoryT]] = (),
    accept_failure: Callable[[RunFailed[StateT, MemoryT]], bool] | None = None,
) -> None:
    """Replay ``case`` with every check of the derived state machine; raise on any difference.

    Raises :class:`~verification.kit.RunViolation` when a rule breaks and ``AssertionError``
    when the run leaves the scripted path. A case whose rows end before a terminal state
    (an explored counterexample that fails in its next step) takes that step too, so the
    failure is raised as the :class:`~verification.kit.RunViolation` it is.

    Example:
        >>> from verification.kit._demo import COUNTER, Roll, Tally
        >>> rolls = Outcomes().on(Roll, lambda e: None, examples=lambda e: (0, 3))
        >>> for case in covering_cases(COUNTER, [Tally(limit=1)], rolls).cases:
        ...     run_case(COUNTER, case)
    """
    rules = RunRules.of(
        machine, invariants, budget=budget, properties=properties, accept_failure=accept_failure
    )
    run = CheckedRun(rules, case.state, case.memory)
    fed = iter(case.outcomes)

    def choose(effect: Effect[object]) -> object:
        return next(fed)

    for expected in case.rows:
        took = run.take(choose)
        if took != expected:
            raise AssertionError(
                f"{case.id}: expected {expected}, took {took}\n" + "\n".join(p.render() for p in run.path)
            )
    if run.live:
        run.take(choose)  # raises the RunViolation of a failing step
    if not run.snapshot.finished:
        raise AssertionError(f"{case.id}: the run did not finish")
    run.close()
