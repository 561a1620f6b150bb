"""A durable run paced from outside: ``python -m tests.server.paced DB RUN_ID STEPS``.

Each effect (``Tick``, not retry-safe, so its started row is stored before it is performed)
prints ``performing N`` and waits for a line on standard input before it returns: a test
decides when the run in this other process moves on, and sees its events arrive meanwhile.
"""

from __future__ import annotations

import enum
import sys
from contextlib import closing
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable, open_store
from agentsm_fn.shell import Performers, Shell


class S(enum.Enum):
    TICKING = "ticking"
    DONE = "done"


class E(enum.Enum):
    TICKED = "ticked"
    ENOUGH = "enough"


@attrs.frozen
class Tick(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    n: int


@attrs.frozen(kw_only=True)
class Count:
    steps: int
    done: int = 0


def tick(count: Count) -> Result[tuple[Literal[E.ENOUGH], Count] | Perform[int, Count], Fault]:
    return emit(E.ENOUGH, count) if count.done >= count.steps else perform(Tick(count.done), count)


def ticked(count: Count, n: int) -> Result[tuple[Literal[E.TICKED], Count], Fault]:
    return emit(E.TICKED, attrs.evolve(count, done=n + 1))


PACED: Machine[S, E, Count] = define_machine(
    name="paced",
    states=S,
    events=E,
    initial=S.TICKING,
    terminals={S.DONE},
    table={(S.TICKING, E.TICKED): S.TICKING, (S.TICKING, E.ENOUGH): S.DONE},
    handlers={S.TICKING: effectful(tick, ticked)},
    budgeted={S.TICKING},
    safety_cap=lambda count: 10 + 3 * count.steps,
)


def _paced(effect: Tick) -> int:
    print(f"performing {effect.n}", flush=True)
    sys.stdin.readline()
    return effect.n


def _shell() -> Shell:
    return Shell(Performers().on(Tick, _paced))


PACED_RUNS = Durable(name="tests.server.paced:PACED_RUNS", machine=PACED, shell=_shell)
"""Runs paced by standard input (as the serving test registers them)."""


def main(argv: list[str]) -> int:
    db, run_id, steps = argv
    with closing(open_store(db).unwrap()) as store:
        done = PACED_RUNS.start(store, Count(steps=int(steps)), run_id=run_id)
    print(
        "finished" if done.map(lambda stored: stored.finished).value_or(False) else f"stopped: {done}",
        flush=True,
    )
    return 0


if __name__ == "__main__":  # run it as the module other processes import, so its values decode there
    from tests.server.paced import main as paced_main

    raise SystemExit(paced_main(sys.argv[1:]))
