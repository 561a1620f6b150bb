"""A counting machine for stream tests: Loop asks for a number until it has ``limit`` of them."""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn import Effect, Fault, Machine, Perform, define_machine, effectful, emit, perform


class S(enum.Enum):
    LOOP = "Loop"
    DONE = "Done"


class E(enum.Enum):
    MORE = "more"
    ENOUGH = "enough"


@attrs.frozen
class Number(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True


@attrs.frozen(kw_only=True)
class Count:
    limit: int
    numbers: tuple[int, ...] = ()


def ask(m: Count) -> Result[tuple[Literal[E.ENOUGH], Count] | Perform[int, Count], Fault]:
    return emit(E.ENOUGH, m) if len(m.numbers) >= m.limit else perform(Number(), m)


def got(m: Count, number: int) -> Result[tuple[Literal[E.MORE], Count], Fault]:
    return emit(E.MORE, attrs.evolve(m, numbers=(*m.numbers, number)))


COUNTING: Machine[S, E, Count] = define_machine(
    name="counting",
    states=S,
    events=E,
    initial=S.LOOP,
    terminals={S.DONE},
    table={(S.LOOP, E.MORE): S.LOOP, (S.LOOP, E.ENOUGH): S.DONE},
    handlers={S.LOOP: effectful(ask, got)},
    safety_cap=lambda m: 2 * m.limit + 2,
)
