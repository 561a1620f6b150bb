"""A delegating state: a handler that runs one child program and routes how the child ended.

:func:`delegate` makes the handler of a state whose work is another program's run: on entry
it asks for a :class:`~agentsm_fn.teams.values.ChildRun` of ``program`` from the memory
``start`` makes; on the child's outcome it folds it into memory with ``merge`` and emits

* the event ``ends`` maps the child's terminal state to (:class:`ChildFinished`),
* ``failed`` (:class:`ChildFailed`), or ``cancelled`` (:class:`ChildCancelled`).

An outcome with no event (a terminal missing from ``ends``, or no ``failed`` event) is a
:class:`~agentsm_fn.core.faults.Fault` at run time; the verifier reports it before (SM016
reads :attr:`Delegating.ends`, :attr:`Delegating.failed` and :attr:`Delegating.cancelled`,
and :attr:`Delegating.child` for the child's terminals).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Decision, Handler, emit, perform
from agentsm_fn.core.machine import Machine
from agentsm_fn.teams.values import (
    ChildCancelled,
    ChildFailed,
    ChildFinished,
    ChildOutcome,
    ChildRun,
)

__all__ = ["Delegating", "delegate", "outcome_event"]

E = TypeVar("E", bound=enum.Enum)
E_co = TypeVar("E_co", bound=enum.Enum, covariant=True)
M = TypeVar("M")
CS = TypeVar("CS", bound=enum.Enum)
"""The child machine's state enum."""
CE = TypeVar("CE", bound=enum.Enum)
"""The child machine's event enum."""
CM = TypeVar("CM")
"""The child machine's memory type."""


def outcome_event(
    outcome: ChildOutcome, ends: Mapping[str, E], failed: E | None, cancelled: E | None
) -> E | None:
    """The event a child's outcome maps to (``ends`` keyed by terminal state name), or None.

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     OK = 1
        ...     BAD = 2
        >>> done = ChildFinished(run_id="c", program="app:C", state="DONE")
        >>> outcome_event(done, {"DONE": Ev.OK}, Ev.BAD, None)
        <Ev.OK: 1>
        >>> outcome_event(ChildCancelled(run_id="c", program="app:C"), {"DONE": Ev.OK}, Ev.BAD, None) is None
        True
    """
    if isinstance(outcome, ChildFinished):
        return ends.get(outcome.state)
    if isinstance(outcome, ChildFailed):
        return failed
    return cancelled


@attrs.frozen(repr=False)
class Delegating(Handler[E_co, M], Generic[E_co, M, CS, CE, CM]):
    """The handler of a delegating state (made by :func:`delegate`); see the module docstring."""

    program: str
    child: Machine[CS, CE, CM]
    start: Callable[[M], CM]
    ends: Mapping[CS, E_co]
    failed: E_co | None
    cancelled: E_co | None
    merge: Callable[[M, ChildOutcome], M]
    run_id: Callable[[M], str | None] | None = None

    @property
    def by_name(self) -> Mapping[str, E_co]:
        """``ends`` keyed by the child terminal's name (how a stored outcome names it)."""
        return MappingProxyType({state.name: event for state, event in self.ends.items()})

    def enter(self, memory: M) -> Decision[E_co, M]:
        run_id = None if self.run_id is None else self.run_id(memory)
        return perform(ChildRun(program=self.program, memory=self.start(memory), run_id=run_id), memory)

    def resume(self, memory: M, effect: Effect[object], outcome: object) -> Decision[E_co, M]:
        if not isinstance(outcome, ChildFinished | ChildFailed | ChildCancelled):
            problem = f"{type(outcome).__name__} is not a child outcome"
            return Failure(Fault(f"delegating to {self.program}: {problem}"))
        child: ChildOutcome = outcome
        event = outcome_event(child, self.by_name, self.failed, self.cancelled)
        if event is None:
            return Failure(Fault(f"delegating to {self.program}: {child.describe()}, which maps to no event"))
        return emit(event, self.merge(memory, child))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return (self.start, self.merge)

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        routed = {*self.ends.values(), self.failed, self.cancelled}
        return frozenset(event for event in routed if event is not None)

    @property
    def failure_event(self) -> enum.Enum | None:
        return None

    @property
    def effectful(self) -> bool:
        return True

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        return frozenset({ChildRun})

    def __repr__(self) -> str:
        ends = {s.name: e.name for s, e in self.ends.items()}
        return f"Delegating({self.program}, ends={ends})"


def _kept(memory: M, outcome: ChildOutcome) -> M:
    return memory


def delegate(
    *,
    program: str,
    child: Machine[CS, CE, CM],
    start: Callable[[M], CM],
    ends: Mapping[CS, E],
    failed: E | None = None,
    cancelled: E | None = None,
    merge: Callable[[M, ChildOutcome], M] = _kept,
    run_id: Callable[[M], str | None] | None = None,
) -> Delegating[E, M, CS, CE, CM]:
    """The handler of a state that runs ``program`` (whose machine is ``child``) as a child run.

    ``start`` makes the child's start memory from the parent's; ``ends`` maps each terminal
    state of ``child`` to a parent event; ``failed`` and ``cancelled`` are the events of a
    child that failed or was cancelled (leave one out only if the state has no row for it:
    the verifier reports it); ``merge(memory, outcome)`` folds the outcome into the parent's
    memory; ``run_id`` (optional) names the child run (default: derived from the parent's).

    Example:
        >>> import enum
        >>> from agentsm_fn.core.machine import define_machine
        >>> class C(enum.Enum):
        ...     WORK = 1
        ...     DONE = 2
        >>> class CE(enum.Enum):
        ...     FINISH = 1
        >>> child = define_machine(states=C, events=CE, initial=C.WORK, terminals={C.DONE},
        ...     table={(C.WORK, CE.FINISH): C.DONE}, handlers={C.WORK: lambda n: emit(CE.FINISH, n)})
        >>> class Ev(enum.Enum):
        ...     ANSWERED = 1
        ...     BROKE = 2
        >>> h = delegate(program="app:CHILD", child=child, start=lambda m: m + 1,
        ...     ends={C.DONE: Ev.ANSWERED}, failed=Ev.BROKE, merge=lambda m, o: m * 10)
        >>> h.enter(1).unwrap().effect
        ChildRun(program='app:CHILD', memory=2, run_id=None)
        >>> h.resume(1, h.enter(1).unwrap().effect,
        ...     ChildFinished(run_id="c", program="app:CHILD", state="DONE", result=2)).unwrap()
        (<Ev.ANSWERED: 1>, 10)
    """
    return Delegating(program, child, start, dict(ends), failed, cancelled, merge, run_id)
