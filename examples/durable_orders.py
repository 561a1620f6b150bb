"""Durable runs: orders that survive a killed process, wait for approval, and are checked after a change.

    python examples/durable_orders.py                          # a tour in a temporary store
    python examples/durable_orders.py --db runs.db --orders 3 --die-after 1
        # charge 3 orders; SIGKILL itself while checking the stock of the second
    python examples/durable_orders.py --db runs.db --inspect
        # the run inspector on this store (a few orders first if it is empty): http://127.0.0.1:8000/

An order looks up its price and checks the stock (reads: retry-safe), charges the card (not
retry-safe), and a large order waits for a human's approval. Every effect's outcome is committed to a SQLite
store before the machine sees it, so a process killed at any point loses nothing:
``recover`` (or ``agentsm-runs recover durable_orders:ORDERS``) runs the unfinished orders
on, and no card is charged twice. ``ORDERS_V2`` is the next version of the machine (large
orders are charged without approval): ``check_runs`` says which stored runs it would break.

Every effect has a failure route (``failure_event=E.FAILED``), so the verifier passes it
(``agentsm-verify examples/durable_orders.py:ORDER_MACHINE``): a failed price, stock or approval
lookup cancels the order; a failed charge, or one whose outcome is unknown after a crash (it is
not retry-safe), ends in NEEDS_REVIEW for a human to reconcile with the card processor.
"""

from __future__ import annotations

import argparse
import enum
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.core import SUSPEND, Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable, SqliteStore
from agentsm_fn.durable.operations.check import check_runs
from agentsm_fn.durable.operations.forks import fork
from agentsm_fn.durable.operations.recovery import recover
from agentsm_fn.shell import Performers, Shell


class S(enum.Enum):
    PRICING = "pricing"
    STOCKING = "stocking"
    CHARGING = "charging"
    APPROVING = "approving"
    DONE = "done"
    CANCELLED = "cancelled"
    NEEDS_REVIEW = "needs_review"


class E(enum.Enum):
    PRICED = "priced"
    IN_STOCK = "in_stock"
    LARGE = "large"
    CHARGED = "charged"
    APPROVED = "approved"
    REJECTED = "rejected"
    OUT_OF_STOCK = "out_of_stock"
    FAILED = "failed"


@attrs.frozen
class LookUpPrice(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    order_id: str


@attrs.frozen
class CheckStock(Effect[bool]):
    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    retry_safe = True
    order_id: str


@attrs.frozen
class ChargeCard(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    order_id: str
    amount: int


@attrs.frozen
class AskManager(Effect[bool]):
    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    order_id: str
    amount: int


@attrs.frozen(kw_only=True)
class Order:
    order_id: str
    amount: int = 0
    receipt: str = ""
    approved: bool | None = None


def look_up(order: Order) -> Result[Perform[int, Order], Fault]:
    return perform(LookUpPrice(order.order_id), order)


def priced(order: Order, amount: int) -> Result[tuple[Literal[E.PRICED, E.LARGE], Order], Fault]:
    return emit(E.LARGE if amount > 1_000 else E.PRICED, attrs.evolve(order, amount=amount))


def check_stock(order: Order) -> Result[Perform[bool, Order], Fault]:
    return perform(CheckStock(order.order_id), order)


def stocked(
    order: Order, available: bool
) -> Result[tuple[Literal[E.IN_STOCK, E.OUT_OF_STOCK], Order], Fault]:
    return emit(E.IN_STOCK if available else E.OUT_OF_STOCK, order)


def charge(order: Order) -> Result[Perform[str, Order], Fault]:
    return perform(ChargeCard(order.order_id, order.amount), order)


def charged(order: Order, receipt: str) -> Result[tuple[Literal[E.CHARGED], Order], Fault]:
    return emit(E.CHARGED, attrs.evolve(order, receipt=receipt))


def ask(order: Order) -> Result[Perform[bool, Order], Fault]:
    return perform(AskManager(order.order_id, order.amount), order)


def answered(order: Order, yes: bool) -> Result[tuple[Literal[E.APPROVED, E.REJECTED], Order], Fault]:
    return emit(E.APPROVED if yes else E.REJECTED, attrs.evolve(order, approved=yes))


ORDER_MACHINE: Machine[S, E, Order] = define_machine(
    name="orders",
    states=S,
    events=E,
    initial=S.PRICING,
    terminals={S.DONE, S.CANCELLED, S.NEEDS_REVIEW},
    table={
        (S.PRICING, E.PRICED): S.STOCKING,
        (S.PRICING, E.LARGE): S.APPROVING,
        (S.PRICING, E.FAILED): S.CANCELLED,
        (S.APPROVING, E.APPROVED): S.STOCKING,
        (S.APPROVING, E.REJECTED): S.CANCELLED,
        (S.APPROVING, E.FAILED): S.CANCELLED,
        (S.STOCKING, E.IN_STOCK): S.CHARGING,
        (S.STOCKING, E.OUT_OF_STOCK): S.CANCELLED,
        (S.STOCKING, E.FAILED): S.CANCELLED,
        (S.CHARGING, E.CHARGED): S.DONE,
        (S.CHARGING, E.FAILED): S.NEEDS_REVIEW,
    },
    handlers={
        S.PRICING: effectful(look_up, priced, failure_event=E.FAILED),
        S.APPROVING: effectful(ask, answered, failure_event=E.FAILED),
        S.STOCKING: effectful(check_stock, stocked, failure_event=E.FAILED),
        S.CHARGING: effectful(charge, charged, failure_event=E.FAILED),
    },
)


class S2(enum.Enum):
    """Version 2: no APPROVING state; large orders are charged at once."""

    PRICING = "pricing"
    STOCKING = "stocking"
    CHARGING = "charging"
    DONE = "done"
    CANCELLED = "cancelled"
    NEEDS_REVIEW = "needs_review"


ORDER_MACHINE_V2: Machine[S2, E, Order] = define_machine(
    name="orders",
    states=S2,
    events=E,
    initial=S2.PRICING,
    terminals={S2.DONE, S2.CANCELLED, S2.NEEDS_REVIEW},
    table={
        (S2.PRICING, E.PRICED): S2.STOCKING,
        (S2.PRICING, E.LARGE): S2.STOCKING,
        (S2.PRICING, E.FAILED): S2.CANCELLED,
        (S2.STOCKING, E.IN_STOCK): S2.CHARGING,
        (S2.STOCKING, E.OUT_OF_STOCK): S2.CANCELLED,
        (S2.STOCKING, E.FAILED): S2.CANCELLED,
        (S2.CHARGING, E.CHARGED): S2.DONE,
        (S2.CHARGING, E.FAILED): S2.NEEDS_REVIEW,
    },
    handlers={
        S2.PRICING: effectful(look_up, priced, failure_event=E.FAILED),
        S2.STOCKING: effectful(check_stock, stocked, failure_event=E.FAILED),
        S2.CHARGING: effectful(charge, charged, failure_event=E.FAILED),
    },
)


PRICES = {"o-1": 40, "o-2": 75, "o-3": 120, "o-7": 5_000, "o-8": 2_500}
DIE_AFTER: list[int] = []
"""Set by --die-after N: SIGKILL this process during stock check N + 1 (a crash, for the demo)."""


def _check_stock(effect: CheckStock) -> bool:
    if DIE_AFTER:
        DIE_AFTER[0] -= 1
        if DIE_AFTER[0] < 0:
            os.kill(os.getpid(), signal.SIGKILL)  # a crash while an effect is in flight
    return True


def _charge_card(effect: ChargeCard) -> str:
    print(f"    charging {effect.order_id}: {effect.amount}")
    return f"receipt-{effect.order_id}"


def shell() -> Shell:
    """The performers: a price list, a card that prints each charge, a manager who answers later."""
    performers = (
        Performers()
        .on(LookUpPrice, lambda effect: PRICES.get(effect.order_id, 10))
        .on(CheckStock, _check_stock)
        .on(ChargeCard, _charge_card)
        .on(AskManager, lambda effect: SUSPEND)
    )
    return Shell(performers)


ORDERS = Durable(name="durable_orders:ORDERS", machine=ORDER_MACHINE, shell=shell)
ORDERS_V2 = Durable(name="durable_orders:ORDERS", machine=ORDER_MACHINE_V2, shell=shell)


def charge_orders(db: Path, count: int) -> None:
    with closing(SqliteStore.open(db).unwrap()) as store:
        for number in range(1, count + 1):
            ORDERS.start(store, Order(order_id=f"o-{number}"), run_id=f"o-{number}")


def tour() -> int:
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "runs.db"
        print("-- a worker charges 3 orders and is killed (SIGKILL) while checking the stock of the second")
        script = [sys.executable, __file__, "--db", str(db), "--orders", "3", "--die-after", "1"]
        killed = subprocess.run(script, check=False)
        print(f"   worker exit status {killed.returncode}")
        with closing(SqliteStore.open(db).unwrap()) as store:
            print("-- recover: the unfinished order runs on; the committed charge of o-1 is not repeated")
            for run in recover(store, [ORDERS]).unwrap():
                memory = run.result.unwrap().snapshot.memory  # recover takes any machines: narrow it
                print(f"   {run.run_id}: {memory.receipt if isinstance(memory, Order) else memory}")
            print("-- a large order waits for the manager")
            waiting = ORDERS.start(store, Order(order_id="o-7")).unwrap()
            print(f"   {waiting.run_id} waits in {waiting.snapshot.state.name}")
            print("-- version 2 of the machine charges large orders at once: checked against the stored runs")
            for verdict in check_runs(store, ORDERS_V2.machine, ORDERS.name).unwrap():
                print(f"   {verdict.describe()}")
    return 0


def inspect(db: Path, port: int) -> int:
    """Serve the run inspector on ``db``; an empty store gets a few orders (one waits, one is a fork)."""
    from agentsm_fn.server.serve import serve_runs  # noqa: PLC0415 - the server extra, only for --inspect

    with closing(SqliteStore.open(db).unwrap()) as store:
        if not store.runs().unwrap():
            charge_orders(db, 3)
            ORDERS.start(store, Order(order_id="o-7"), run_id="o-7")  # a large order: waits for the manager
            fork(store, ORDER_MACHINE, "o-1", 1, ORDERS, lambda order: attrs.evolve(order, amount=45), "o-1b")
        announce = f"the run inspector: http://127.0.0.1:{port}/  (Ctrl-C stops it)"
        return serve_runs(store, [ORDERS], port=port, announce=announce)  # announced once the port is held


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--db", help="the SQLite run store")
    parser.add_argument("--orders", type=int, default=3)
    parser.add_argument("--die-after", type=int, help="SIGKILL this process during stock check N + 1")
    parser.add_argument("--inspect", action="store_true", help="serve the run inspector on --db")
    parser.add_argument("--port", type=int, default=8000, help="the inspector's port (with --inspect)")
    args = parser.parse_args(argv)
    if args.db is None:
        return tour()
    if args.inspect:
        return inspect(Path(args.db), args.port)
    if args.die_after is not None:
        DIE_AFTER.append(args.die_after)
    charge_orders(Path(args.db), args.orders)
    return 0


if __name__ == "__main__":
    # Run as the module ``durable_orders``, not ``__main__``: stored values name their classes by module,
    # and every process (this one, the worker, agentsm-runs) must find them under the same name.
    import durable_orders

    raise SystemExit(durable_orders.main())
