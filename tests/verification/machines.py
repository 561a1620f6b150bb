"""Machines written the way users write them: real enums, annotated handlers, a literal table."""

from __future__ import annotations

import enum
from typing import Literal

import attrs
from returns.result import Result

from agentsm_fn import Effect, Fault, Perform, define_machine, effectful, emit, perform, pure


class Phase(enum.Enum):
    IDLE = "Idle"
    WORK = "Work"
    DONE = "Done"
    FAILED = "Failed"


class Signal(enum.Enum):
    START = 1
    MORE = 2
    FINISHED = 3
    BROKE = 4
    IGNORED = 5


class Stray(enum.Enum):
    ELSEWHERE = 1


@attrs.frozen
class Ask(Effect[int]):
    outcome_types = (int,)


@attrs.frozen(kw_only=True)
class Mem:
    n: int = 0


def idle(m: Mem) -> Result[tuple[Literal[Signal.START], Mem], Fault]:
    return emit(Signal.START, m)


def work_request(m: Mem) -> Result[tuple[Literal[Signal.FINISHED], Mem] | Perform[int, Mem], Fault]:
    if m.n >= 3:
        return emit(Signal.FINISHED, m)
    return perform(Ask(), m)


def work_receive(m: Mem, x: int) -> Result[tuple[Literal[Signal.MORE, Signal.BROKE], Mem], Fault]:
    if x < 0:
        return emit(Signal.BROKE, m)
    return emit(Signal.MORE, attrs.evolve(m, n=m.n + 1))


def idle_any(m: Mem) -> Result[tuple[Signal, Mem], Fault]:
    return emit(Signal.START, m)


def idle_stray(m: Mem) -> Result[tuple[Literal[Signal.START, Stray.ELSEWHERE], Mem], Fault]:
    return emit(Signal.START, m)


WORKER = define_machine(
    name="worker",
    states=Phase,
    events=Signal,
    initial=Phase.IDLE,
    terminals={Phase.DONE, Phase.FAILED},
    table={
        (Phase.IDLE, Signal.START): Phase.WORK,
        (Phase.WORK, Signal.MORE): Phase.WORK,
        (Phase.WORK, Signal.FINISHED): Phase.DONE,
        (Phase.WORK, Signal.BROKE): Phase.FAILED,
    },
    handlers={
        Phase.IDLE: pure(idle),
        Phase.WORK: effectful(work_request, work_receive, failure_event=Signal.BROKE),
    },
    budgeted={Phase.WORK},
)

WORKER_DEAD_ROW = WORKER.extend(rows={(Phase.IDLE, Signal.IGNORED): Phase.DONE}, name="dead-row")

WORKER_ANY = WORKER.extend(handlers={Phase.IDLE: pure(idle_any)}, name="any-event")

# Planted defect: the annotation names an event of another enum, which mypy rejects too.
_STRAY = pure(idle_stray)
WORKER_STRAY = WORKER.extend(handlers={Phase.IDLE: _STRAY}, name="stray")  # type: ignore[dict-item]

WORKER_LAMBDA = WORKER.extend(handlers={Phase.IDLE: pure(lambda m: emit(Signal.START, m))}, name="lambda")
