"""Machines the inspector's tests and benchmark store runs of.

``COUNTER`` counts to its memory's ``target``, one ``Tick`` effect a step, so a run has
as many steps as asked (1,000 for the benchmark). Its graph has what the verifier flags:
the counting loop has no budget, ``Tick`` has no failure route, and ``LOST`` cannot be reached.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Performers, Shell


class C(enum.Enum):
    COUNTING = "counting"
    DONE = "done"
    LOST = "lost"


class Ev(enum.Enum):
    TICKED = "ticked"
    FINISHED = "finished"


@attrs.frozen
class Tick(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    n: int


@attrs.frozen(kw_only=True)
class Count:
    target: int
    n: int = 0
    note: str = ""
    seen: tuple[int, ...] = ()


def tick(memory: Count) -> Result[Perform[int, Count], Fault]:
    return perform(Tick(memory.n), memory)


def ticked(memory: Count, value: int) -> Result[tuple[Literal[Ev.TICKED, Ev.FINISHED], Count], Fault]:
    counted = attrs.evolve(memory, n=memory.n + 1, seen=(*memory.seen[-4:], value))
    return emit(Ev.FINISHED if counted.n >= memory.target else Ev.TICKED, counted)


COUNTER_MACHINE: Machine[C, Ev, Count] = define_machine(
    name="counter",
    states=C,
    events=Ev,
    initial=C.COUNTING,
    terminals={C.DONE, C.LOST},
    table={(C.COUNTING, Ev.TICKED): C.COUNTING, (C.COUNTING, Ev.FINISHED): C.DONE},
    handlers={C.COUNTING: effectful(tick, ticked)},
    safety_cap=1_000_000,
)


def _shell() -> Shell:
    return Shell(Performers().on(Tick, lambda effect: effect.n * 2))


COUNTER = Durable(name="tests.inspector.machines:COUNTER", machine=COUNTER_MACHINE, shell=_shell)
