"""A fanning-out state: a handler that runs one child per item and routes the gathered outcomes.

:func:`fan_out` makes the handler of a state that maps a program over items: on entry it asks
for one :class:`~agentsm_fn.teams.values.Children` effect (the start memories ``items`` makes,
at most ``limit`` children at once, the :class:`~agentsm_fn.teams.values.GatherPolicy`); once
every child ended it folds the :class:`~agentsm_fn.teams.values.Gathered` outcomes into memory
with ``merge`` and emits ``all_finished`` when every child finished, else ``some_failed``. No
items at all: it emits ``all_finished`` at once with an empty ``Gathered`` (nothing is run).

The handler is a :class:`FanningOut`: it declares both events and its effect, and carries
``child`` so the verifier can read the child machine (every child terminal maps to
``all_finished``; a failed or cancelled child to ``some_failed``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Decision, Handler, emit, perform
from agentsm_fn.core.machine import Machine
from agentsm_fn.teams.values import Children, Gathered, GatherPolicy

__all__ = ["FanningOut", "fan_out"]

E = TypeVar("E", bound=enum.Enum)
E_co = TypeVar("E_co", bound=enum.Enum, covariant=True)
M = TypeVar("M")
CS = TypeVar("CS", bound=enum.Enum)
"""The child machine's state enum."""
CE = TypeVar("CE", bound=enum.Enum)
"""The child machine's event enum."""
CM = TypeVar("CM")
"""The child machine's memory type."""


@attrs.frozen(repr=False)
class FanningOut(Handler[E_co, M], Generic[E_co, M, CS, CE, CM]):
    """The handler of a fanning-out state (made by :func:`fan_out`); see the module docstring."""

    program: str
    child: Machine[CS, CE, CM]
    items: Callable[[M], Sequence[CM]]
    limit: int
    policy: GatherPolicy
    all_finished: E_co
    some_failed: E_co
    merge: Callable[[M, Gathered], M]

    def enter(self, memory: M) -> Decision[E_co, M]:
        memories = tuple(self.items(memory))
        if not memories:
            return emit(self.all_finished, self.merge(memory, Gathered()))
        fan = Children(program=self.program, memories=memories, limit=self.limit, policy=self.policy)
        return perform(fan, memory)

    def resume(self, memory: M, effect: Effect[object], outcome: object) -> Decision[E_co, M]:
        if not isinstance(outcome, Gathered):
            problem = f"{type(outcome).__name__} is not a gathered outcome"
            return Failure(Fault(f"fanning out to {self.program}: {problem}"))
        event = self.all_finished if outcome.all_finished else self.some_failed
        return emit(event, self.merge(memory, outcome))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return (self.items, self.merge)

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return frozenset({self.all_finished, self.some_failed})

    @property
    def failure_event(self) -> enum.Enum | None:
        return None

    @property
    def effectful(self) -> bool:
        return True

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        return frozenset({Children})

    def __repr__(self) -> str:
        return f"FanningOut({self.program}, limit={self.limit}, {self.policy.name})"


def _kept(memory: M, gathered: Gathered) -> M:
    return memory


def fan_out(
    *,
    program: str,
    child: Machine[CS, CE, CM],
    items: Callable[[M], Sequence[CM]],
    all_finished: E,
    some_failed: E,
    limit: int = 8,
    policy: GatherPolicy = GatherPolicy.GO_ON,
    merge: Callable[[M, Gathered], M] = _kept,
) -> FanningOut[E, M, CS, CE, CM]:
    """The handler of a state that runs ``program`` (whose machine is ``child``) once per item.

    ``items`` makes the children's start memories from the parent's memory; ``limit`` bounds
    how many run at once (at least 1); ``policy`` says whether the rest go on after a child
    failed; ``merge(memory, gathered)`` folds the outcomes (in the order of the items) into the
    parent's memory; the state emits ``all_finished`` or ``some_failed``.

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
        ...     ALL = 1
        ...     SOME = 2
        >>> h = fan_out(program="app:CHILD", child=child, items=lambda m: m, all_finished=Ev.ALL,
        ...     some_failed=Ev.SOME, limit=2, merge=lambda m, g: g.results)
        >>> h.enter((1, 2)).unwrap().effect.summary()
        'Children app:CHILD x2 limit=2'
        >>> from agentsm_fn.teams.values import ChildFinished
        >>> done = [ChildFinished(run_id=f"c{i}", program="app:C", state="DONE", result=i) for i in (1, 2)]
        >>> h.resume((1, 2), h.enter((1, 2)).unwrap().effect, Gathered(outcomes=tuple(done))).unwrap()
        (<Ev.ALL: 1>, (1, 2))
        >>> h.enter(()).unwrap()
        (<Ev.ALL: 1>, ())
    """
    if limit < 1:
        raise ValueError(f"a fan-out's limit must be at least 1, not {limit}")
    return FanningOut(program, child, items, limit, policy, all_finished, some_failed, merge)
