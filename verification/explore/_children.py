"""Private: a delegating machine's child outcomes, taken from exploring each child first.

A parent's ``ChildRun`` is answered with every way the child can end from the start memory the
parent gives it: the child machine (read from the parent's ``delegate(...)`` handler, or a step
agent of a plan-and-execute EXECUTE) is explored to exhaustion from that memory first (a
:class:`~agentsm_fn.teams.StartTurn` is the new turn the child program's template makes; none, a
failed child, when it has no template), and the parent is fed one :class:`ChildFinished` per terminal
state the child reached (its result: the child program's ``result`` of the first, shortest run's
final memory when the program can be imported and names one, else that memory; none for a terminal
the program's ``failure`` calls a failure), then a :class:`ChildFailed` and a
:class:`ChildCancelled`. A fan-out's ``Children`` is answered with ``Gathered`` outcomes made of
those: every combination of finished children (at most :data:`COMBINATIONS`), and each child failed,
then each cancelled, the others finished (or, with ``CANCEL_REST``, the ones after a failed child
cancelled). A child that delegates is explored the same way. A program that delegates to itself, at
any depth, is not explored again: its nested run is fed only failed and cancelled, and the
exploration is not exhausted.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Callable, Hashable
from typing import Protocol, cast

from hypothesis import strategies as st

from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.llm.turns import TurnStart
from agentsm_fn.shell.targets import import_target
from agentsm_fn.teams import (
    ChildCancelled,
    ChildFailed,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Gathered,
    GatherPolicy,
    StartTurn,
)
from verification.child_reading import read_children
from verification.kit.outcomes import Outcomes

__all__ = ["COMBINATIONS", "ChildOutcomes", "ExploreChild"]

AnyMachine = Machine[enum.Enum, enum.Enum, object]

COMBINATIONS = 64
"""The most combinations of finished children a fan-out is fed."""


class ExploreChild(Protocol):
    """Explores ``machine`` from ``memory``: the exploration, and each terminal reached, first memory."""

    def __call__(
        self,
        machine: AnyMachine,
        memory: object,
        outcomes: Outcomes,
        stack: tuple[int, ...],
        max_states: int | None,
    ) -> tuple[object, tuple[tuple[enum.Enum, object], ...]]: ...


_Result = Callable[[object], object]
_Failure = Callable[[Snapshot[enum.Enum, object]], str | None]
_Turns = TurnStart[object]


def _program_of(program: str) -> tuple[_Result | None, _Failure | None, _Turns | None]:
    """The ``result``, ``failure`` and ``turns`` of the program ``module:attribute`` names (if it has any)."""
    imported = import_target(program).value_or(None)
    value = getattr(imported, "value", None)
    result, failure = getattr(value, "result", None), getattr(value, "failure", None)
    turns = getattr(value, "turns", None)
    return (
        cast(_Result, result) if callable(result) else None,
        cast(_Failure, failure) if callable(failure) else None,
        cast(_Turns, turns) if isinstance(turns, TurnStart) else None,
    )


class ChildOutcomes:
    """Answers a machine's ``ChildRun`` and ``Children`` effects with outcomes from exploring its children."""

    def __init__(
        self,
        machine: AnyMachine,
        outcomes: Outcomes,
        explore_child: ExploreChild,
        stack: tuple[int, ...],
        max_states: int | None,
    ) -> None:
        self.outcomes, self.explore_child, self.stack, self.max_states = (
            outcomes,
            explore_child,
            stack,
            max_states,
        )
        self.programs: dict[str, AnyMachine] = {}
        for handler in machine.handlers.values():
            for info in read_children(handler):
                self.programs.setdefault(info.program, info.machine)
        self.explored: dict[Hashable, object] = {}
        self.ends: dict[Hashable, tuple[tuple[enum.Enum, object], ...]] = {}
        self.durables: dict[str, tuple[_Result | None, _Failure | None, _Turns | None]] = {}
        self.cut = False

    def registry(self) -> Outcomes:
        """``outcomes``, answering ``ChildRun`` and ``Children`` too, unless it gives their examples."""
        if not self.programs:
            return self.outcomes
        mine = Outcomes()
        if ChildRun not in self.outcomes.examples:
            mine = mine.on(ChildRun, lambda e: st.sampled_from(self.one(e)), examples=self.one)
        if Children not in self.outcomes.examples:
            mine = mine.on(Children, lambda e: st.sampled_from(self.many(e)), examples=self.many)
        return self.outcomes.merge(mine)

    def _ends(self, program: str, memory: object) -> tuple[tuple[enum.Enum, object], ...]:
        machine = self.programs[program]
        if id(machine) in self.stack:
            self.cut = True  # recursion: the nested run's ends are not explored again
            return ()
        key: Hashable = (program, memory)
        try:
            hash(key)
        except TypeError:
            key = (program, id(memory))
        if key not in self.ends:
            stack = (*self.stack, id(machine))
            explored, ends = self.explore_child(machine, memory, self.outcomes, stack, self.max_states)
            self.explored[key], self.ends[key] = explored, ends
        return self.ends[key]

    def _kinds(self, program: str, memory: object, run_id: str) -> tuple[ChildOutcome, ...]:
        failed = ChildFailed(run_id=run_id, program=program, reason="explored: the child failed")
        cancelled = ChildCancelled(run_id=run_id, program=program)
        if program not in self.programs:
            return (failed, cancelled)
        if program not in self.durables:
            self.durables[program] = _program_of(program)
        result, failure, turns = self.durables[program]
        if isinstance(memory, StartTurn):  # a new turn of the child: its program's template makes it
            if turns is None:
                return (failed, cancelled)  # the program starts no turns: its child run fails
            memory = turns.start(memory.thread, memory.message)
        finished: list[ChildOutcome] = []
        for state, m in self._ends(program, memory):
            if failure is not None and failure(Snapshot(state=state, memory=m, status=Status.FINISHED)):
                continue  # the program calls this end a failure: its run is stored FAILED
            value = result(m) if result is not None else m
            finished.append(ChildFinished(run_id=run_id, program=program, state=state.name, result=value))
        return (*finished, failed, cancelled)

    def one(self, effect: ChildRun) -> tuple[object, ...]:
        """Every outcome kind of one child run: each terminal reached, failed, cancelled."""
        return self._kinds(effect.program, effect.memory, effect.run_id or "explored")

    def many(self, effect: Children) -> tuple[object, ...]:
        """Gathered outcomes of a fan-out: finished combinations, then each child failed, then cancelled."""
        kinds = [self._kinds(effect.program, m, f"explored-{i}") for i, m in enumerate(effect.memories)]
        done = [tuple(k for k in ks if isinstance(k, ChildFinished)) for ks in kinds]
        first = [d[0] if d else ks[-2] for d, ks in zip(done, kinds, strict=True)]
        found: list[Gathered] = [
            Gathered(outcomes=c) for c in itertools.islice(itertools.product(*done), COMBINATIONS)
        ]
        cancel_rest = effect.policy is GatherPolicy.CANCEL_REST
        for i, ks in enumerate(kinds):
            after = [ks_j[-1] if cancel_rest else first[j] for j, ks_j in enumerate(kinds)]
            found.append(Gathered(outcomes=(*first[:i], ks[-2], *after[i + 1 :])))
        for i, ks in enumerate(kinds):
            found.append(Gathered(outcomes=(*first[:i], ks[-1], *first[i + 1 :])))
        unique: list[Gathered] = []
        for gathered in found:  # by equality: results may not hash
            if gathered not in unique:
                unique.append(gathered)
        return tuple(unique)

    def explorations(self) -> tuple[object, ...]:
        """Every child exploration, in the order they were made."""
        return tuple(self.explored.values())
