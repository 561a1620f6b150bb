"""The programs of benchmarks/teams.py, loaded by name (``_teams_side:NAME``) in every process.

A child of ``EFFECTS`` effects (one ``Tick`` each, performed at once), a child of none, and their
parents: one that runs the child as a child run (``delegate``), one that embeds it (``embed``), and
one that fans out over its items (``fan_out``). Workers import this module from ``benchmarks/``
(on their ``PYTHONPATH``), as the benchmark does, so stored values name the same classes.
"""

from __future__ import annotations

import enum
from typing import ClassVar

import attrs
from returns.result import Result

from agentsm_fn import (
    Effect,
    Fault,
    Perform,
    Performers,
    Shell,
    define_machine,
    effectful,
    embed,
    emit,
    perform,
)
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable import Durable
from agentsm_fn.teams import Gathered, delegate, fan_out

EFFECTS = 20
"""Effects of the benchmark's child."""


@attrs.frozen
class Tick(Effect[int]):
    """One effect of the child (its performer answers at once)."""

    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    n: int


class C(enum.Enum):
    WORK = 1
    DONE = 2


class CE(enum.Enum):
    AGAIN = 1
    FINISH = 2


def _tick(n: int) -> Result[tuple[CE, int] | Perform[int, int], Fault]:
    return perform(Tick(n), n)


def _ticked(n: int, outcome: int) -> Result[tuple[CE, int], Fault]:
    return emit(CE.FINISH if outcome >= EFFECTS else CE.AGAIN, outcome)


def _child(effects: bool) -> Machine[C, CE, int]:
    handler = effectful(_tick, _ticked, events={CE.AGAIN, CE.FINISH}) if effects else None
    return define_machine(
        states=C,
        events=CE,
        initial=C.WORK,
        terminals={C.DONE},
        table={(C.WORK, CE.AGAIN): C.WORK, (C.WORK, CE.FINISH): C.DONE},
        handlers={C.WORK: handler if handler is not None else (lambda n: emit(CE.FINISH, n))},
        name="bench-child" if effects else "bench-empty-child",
    )


TWENTY_MACHINE = _child(True)
EMPTY_MACHINE = _child(False)
PERFORMERS = Performers().on(Tick, lambda effect: effect.n + 1)
TWENTY = Durable(name="_teams_side:TWENTY", machine=TWENTY_MACHINE, shell=lambda: Shell(PERFORMERS))
EMPTY = Durable(name="_teams_side:EMPTY", machine=EMPTY_MACHINE, shell=lambda: Shell(PERFORMERS))


class P(enum.Enum):
    ASK = 1
    DONE = 2
    GAVE_UP = 3


class PE(enum.Enum):
    FINISHED = 1
    BROKE = 2


ROWS = {(P.ASK, PE.FINISHED): P.DONE, (P.ASK, PE.BROKE): P.GAVE_UP}


def _parent(name: str, handler: object) -> Durable[P, PE, object]:
    machine: Machine[P, PE, object] = define_machine(
        states=P,
        events=PE,
        initial=P.ASK,
        terminals={P.DONE, P.GAVE_UP},
        table=ROWS,
        handlers={P.ASK: handler},  # type: ignore[dict-item]  # each builder's handler of P's events
        name=name,
    )
    return Durable(name=f"_teams_side:{name.upper()}", machine=machine, shell=lambda: Shell(PERFORMERS))


def _as_child(program: Durable[C, CE, int]) -> object:
    return delegate(
        program=program.name,
        child=program.machine,
        start=lambda memory: 0,
        ends={C.DONE: PE.FINISHED},
        failed=PE.BROKE,
        cancelled=PE.BROKE,
        merge=lambda memory, outcome: outcome,
    )


def _embedded(machine: Machine[C, CE, int]) -> object:
    return embed(machine, enter=lambda memory: 0, leave=lambda memory, n: n, exits={C.DONE: PE.FINISHED})


def _gathered(memory: object, gathered: Gathered) -> object:
    return len(gathered.outcomes)


AS_CHILD = _parent("as_child", _as_child(TWENTY))
EMBEDDED = _parent("embedded", _embedded(TWENTY_MACHINE))
EMPTY_AS_CHILD = _parent("empty_as_child", _as_child(EMPTY))
EMPTY_EMBEDDED = _parent("empty_embedded", _embedded(EMPTY_MACHINE))
SMALL = Durable(name="_teams_side:SMALL", machine=EMPTY_MACHINE, shell=lambda: Shell(PERFORMERS))
FAN = _parent(
    "fan",
    fan_out(
        program=SMALL.name,
        child=EMPTY_MACHINE,
        items=lambda memory: tuple(range(memory if isinstance(memory, int) else 0)),
        all_finished=PE.FINISHED,
        some_failed=PE.BROKE,
        limit=100,
        merge=_gathered,
    ),
)
