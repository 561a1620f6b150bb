"""A small fixed machine for unit tests: Idle -> Work (asks for numbers) -> Done."""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn import Effect, Fault, Machine, Perform, define_machine, effectful, emit, perform, pure


class S(enum.Enum):
    IDLE = "Idle"
    WORK = "Work"
    DONE = "Done"


class E(enum.Enum):
    START = "start"
    MORE = "more"
    FINISHED = "finished"
    NOWHERE = "nowhere"


@attrs.frozen
class Ask(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)


@attrs.frozen(kw_only=True)
class Mem:
    n: int = 0
    total: int = 0


def idle(m: Mem) -> Result[tuple[Literal[E.START], Mem], Fault]:
    return emit(E.START, m)


def work_request(m: Mem) -> Result[tuple[Literal[E.FINISHED], Mem] | Perform[int, Mem], Fault]:
    if m.n >= 3:
        return emit(E.FINISHED, m)
    return perform(Ask(), m)


def work_receive(m: Mem, x: int) -> Result[tuple[Literal[E.MORE], Mem], Fault]:
    return emit(E.MORE, attrs.evolve(m, n=m.n + 1, total=m.total + x))


TABLE = {(S.IDLE, E.START): S.WORK, (S.WORK, E.MORE): S.WORK, (S.WORK, E.FINISHED): S.DONE}


def sample_machine() -> Machine[S, E, Mem]:
    return define_machine(
        name="sample",
        states=S,
        events=E,
        initial=S.IDLE,
        terminals={S.DONE},
        table=TABLE,
        handlers={S.IDLE: pure(idle), S.WORK: effectful(work_request, work_receive)},
        budgeted={S.WORK},
    )


def routed_sample_machine() -> Machine[S, E, Mem]:
    """The sample machine whose Work state routes a failed effect to ``E.FINISHED`` (``failure_event``)."""
    return sample_machine().extend(
        handlers={S.WORK: effectful(work_request, work_receive, failure_event=E.FINISHED)}
    )
