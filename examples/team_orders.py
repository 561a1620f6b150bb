"""A small team: a parent that checks one order as a child run, and one that checks many at once.

The child ``CHECK`` checks one order (an amount): it asks for stock (an effect), then ends
``OK`` or ``REFUSED``; an amount of 13 makes it fail. ``ONE`` delegates one order to it
(``delegate``), ``MANY`` fans out over a batch of orders, three at a time (``fan_out``). Each
program is a module-level ``Durable`` whose name is ``team_orders:ATTRIBUTE``, so any worker
imports it by name. docs/teams.md runs it; run it yourself from ``examples/``:

    python team_orders.py
"""

from __future__ import annotations

import enum
import tempfile
from contextlib import closing
from pathlib import Path
from typing import ClassVar

import attrs
from returns.result import Failure, Result

from agentsm_fn import Effect, Fault, Perform, Performers, Shell, define_machine, effectful, emit, perform
from agentsm_fn.core.machine import Machine
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.teams import ChildOutcome, Gathered, delegate, fan_out


@attrs.frozen
class InStock(Effect[bool]):
    """Is there stock for an order of ``amount``? (the child's one effect)"""

    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    amount: int


class Check(enum.Enum):
    CHECKING = 1
    OK = 2
    REFUSED = 3


class Checked(enum.Enum):
    PASSED = 1
    FAILED = 2


def _ask(amount: int) -> Result[tuple[Checked, int] | Perform[bool, int], Fault]:
    if amount == 13:
        return Failure(Fault("order 13 is unlucky"))
    return perform(InStock(amount), amount)


def _answered(amount: int, in_stock: bool) -> Result[tuple[Checked, int], Fault]:
    return emit(Checked.PASSED if in_stock else Checked.FAILED, amount)


CHECK_MACHINE = define_machine(
    states=Check,
    events=Checked,
    initial=Check.CHECKING,
    terminals={Check.OK, Check.REFUSED},
    table={(Check.CHECKING, Checked.PASSED): Check.OK, (Check.CHECKING, Checked.FAILED): Check.REFUSED},
    handlers={Check.CHECKING: effectful(_ask, _answered, events={Checked.PASSED, Checked.FAILED})},
    name="check-order",
)
CHECK = Durable(
    name="team_orders:CHECK",
    machine=CHECK_MACHINE,
    shell=lambda: Shell(Performers().on(InStock, lambda effect: effect.amount <= 100)),
)


@attrs.frozen(kw_only=True)
class Desk:
    """The parent's memory: its orders and what the checks gave."""

    orders: tuple[int, ...] = ()
    outcome: ChildOutcome | None = None
    gathered: Gathered | None = None


class Stage(enum.Enum):
    ASKING = 1
    DONE = 2
    GAVE_UP = 3


class Heard(enum.Enum):
    ACCEPTED = 1
    REFUSED = 2
    BROKE = 3


ROWS = {
    (Stage.ASKING, Heard.ACCEPTED): Stage.DONE,
    (Stage.ASKING, Heard.REFUSED): Stage.DONE,
    (Stage.ASKING, Heard.BROKE): Stage.GAVE_UP,
}


def _first(desk: Desk) -> int:
    return desk.orders[0]


def _heard(desk: Desk, outcome: ChildOutcome) -> Desk:
    return attrs.evolve(desk, outcome=outcome)


def _orders(desk: Desk) -> tuple[int, ...]:
    return desk.orders


def _gathered(desk: Desk, gathered: Gathered) -> Desk:
    return attrs.evolve(desk, gathered=gathered)


ONE_MACHINE: Machine[Stage, Heard, Desk] = define_machine(
    states=Stage,
    events=Heard,
    initial=Stage.ASKING,
    terminals={Stage.DONE, Stage.GAVE_UP},
    table=ROWS,
    handlers={
        Stage.ASKING: delegate(
            program=CHECK.name,
            child=CHECK_MACHINE,
            start=_first,
            ends={Check.OK: Heard.ACCEPTED, Check.REFUSED: Heard.REFUSED},
            failed=Heard.BROKE,
            cancelled=Heard.BROKE,
            merge=_heard,
        )
    },
    name="one-order",
)
ONE = Durable(name="team_orders:ONE", machine=ONE_MACHINE)

MANY_MACHINE: Machine[Stage, Heard, Desk] = define_machine(
    states=Stage,
    events=Heard,
    initial=Stage.ASKING,
    terminals={Stage.DONE, Stage.GAVE_UP},
    table={(Stage.ASKING, Heard.ACCEPTED): Stage.DONE, (Stage.ASKING, Heard.BROKE): Stage.GAVE_UP},
    handlers={
        Stage.ASKING: fan_out(
            program=CHECK.name,
            child=CHECK_MACHINE,
            items=_orders,
            all_finished=Heard.ACCEPTED,
            some_failed=Heard.BROKE,
            limit=3,
            merge=_gathered,
        )
    },
    name="many-orders",
)
MANY = Durable(name="team_orders:MANY", machine=MANY_MACHINE)


def main() -> None:
    """Check one order as a child run, then a batch as a fan-out, in a SQLite store."""
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteStore.open(Path(folder) / "r.db").unwrap()) as store,
    ):
        one = ONE.start(store, Desk(orders=(40,)), run_id="one").unwrap()
        outcome = one.snapshot.memory.outcome
        assert outcome is not None
        print(f"one: {one.snapshot.state.name}, {outcome.describe()}")
        many = MANY.start(store, Desk(orders=(5, 500, 13)), run_id="many").unwrap()
        gathered = many.snapshot.memory.gathered
        assert gathered is not None
        print(f"many: {many.snapshot.state.name}")
        for outcome in gathered.outcomes:
            print(f"  {outcome.describe()}")


if __name__ == "__main__":
    main()
