"""A user machine for the durable tests: an order that looks up prices, charges, and may ask a human.

``Lookup`` is retry-safe (a read); ``Charge`` is not. Performers count their executions in
a file (one line per execution), so tests can tell how often each really happened.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from pyrsistent import PVector, pvector
from returns.result import Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform, pure
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Performers, Shell, StepClock


class S(enum.Enum):
    START = "start"
    PRICING = "pricing"
    CHARGING = "charging"
    APPROVING = "approving"
    DONE = "done"


class E(enum.Enum):
    BEGIN = "begin"
    PRICED = "priced"
    CHARGED = "charged"
    LARGE = "large"
    APPROVED = "approved"
    CHARGE_FAILED = "charge_failed"


@attrs.frozen
class Lookup(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    item: int


@attrs.frozen
class Charge(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    item: int
    amount: int


@attrs.frozen
class AskApproval(Effect[bool]):
    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    total: int


@attrs.frozen(kw_only=True)
class Order:
    items: int
    next_item: int = 0
    price: int = 0
    total: int = 0
    receipts: PVector[str] = attrs.field(factory=pvector)
    approval_over: int = 1_000_000
    approved: bool | None = None


def begin(order: Order) -> Result[tuple[Literal[E.BEGIN], Order], Fault]:
    return emit(E.BEGIN, order)


def ask_price(order: Order) -> Result[Perform[int, Order], Fault]:
    return perform(Lookup(order.next_item), order)


def priced(order: Order, price: int) -> Result[tuple[Literal[E.PRICED], Order], Fault]:
    return emit(E.PRICED, attrs.evolve(order, price=price))


def charge(order: Order) -> Result[Perform[str, Order], Fault]:
    return perform(Charge(order.next_item, order.price), order)


def charged(order: Order, receipt: str) -> Result[tuple[Literal[E.CHARGED, E.LARGE, E.PRICED], Order], Fault]:
    done = attrs.evolve(
        order,
        next_item=order.next_item + 1,
        total=order.total + order.price,
        receipts=order.receipts.append(receipt),
    )
    if done.next_item >= done.items:
        return emit(E.LARGE if done.total > done.approval_over else E.CHARGED, done)
    return emit(E.PRICED, done)


def ask(order: Order) -> Result[Perform[bool, Order], Fault]:
    return perform(AskApproval(order.total), order)


def answered(order: Order, yes: bool) -> Result[tuple[Literal[E.APPROVED], Order], Fault]:
    return emit(E.APPROVED, attrs.evolve(order, approved=yes))


ORDERS: Machine[S, E, Order] = define_machine(
    name="orders",
    states=S,
    events=E,
    initial=S.START,
    terminals={S.DONE},
    table={
        (S.START, E.BEGIN): S.PRICING,
        (S.PRICING, E.PRICED): S.CHARGING,
        (S.CHARGING, E.PRICED): S.PRICING,
        (S.CHARGING, E.CHARGED): S.DONE,
        (S.CHARGING, E.LARGE): S.APPROVING,
        (S.APPROVING, E.APPROVED): S.DONE,
        (S.CHARGING, E.CHARGE_FAILED): S.DONE,
    },
    handlers={
        S.START: pure(begin),
        S.PRICING: effectful(ask_price, priced),
        S.CHARGING: effectful(charge, charged, failure_event=E.CHARGE_FAILED),
        S.APPROVING: effectful(ask, answered),
    },
    budgeted={S.PRICING},
    safety_cap=lambda order: 10 + 3 * order.items,
)


def count(path: Path | None, line: str) -> None:
    if path is not None:
        with path.open("a", encoding="utf-8") as out:
            out.write(line + "\n")


def performers(counts: Path | None = None, log: Callable[[str], None] | None = None) -> Performers:
    """Lookup and Charge performers that log each execution; AskApproval suspends the run."""
    from agentsm_fn.core import SUSPEND

    def note(line: str) -> None:
        count(counts, line)
        if log is not None:
            log(line)

    def lookup(effect: Lookup) -> int:
        note(f"lookup {effect.item}")
        return 10 + effect.item

    def pay(effect: Charge) -> str:
        note(f"charge {effect.item}")
        return f"receipt-{effect.item}-{effect.amount}"

    return Performers().on(Lookup, lookup).on(Charge, pay).on(AskApproval, lambda effect: SUSPEND)


def shell() -> Shell:
    return Shell(performers(), StepClock(start=1000.0))


DURABLE_ORDERS = Durable(name="tests.durable.machines:DURABLE_ORDERS", machine=ORDERS, shell=shell)


class S2(enum.Enum):
    """The states of version 2 of the order machine: approvals are gone."""

    START = "start"
    PRICING = "pricing"
    CHARGING = "charging"
    DONE = "done"


ORDERS_V2: Machine[S2, E, Order] = define_machine(
    name="orders",
    states=S2,
    events=E,
    initial=S2.START,
    terminals={S2.DONE},
    table={
        (S2.START, E.BEGIN): S2.PRICING,
        (S2.PRICING, E.PRICED): S2.CHARGING,
        (S2.CHARGING, E.PRICED): S2.PRICING,
        (S2.CHARGING, E.CHARGED): S2.DONE,
        (S2.CHARGING, E.LARGE): S2.DONE,
    },
    handlers={
        S2.START: pure(begin),
        S2.PRICING: effectful(ask_price, priced),
        S2.CHARGING: effectful(charge, charged),
    },
    budgeted={S2.PRICING},
    safety_cap=lambda order: 10 + 3 * order.items,
)


DURABLE_ORDERS_V2 = Durable(name=DURABLE_ORDERS.name, machine=ORDERS_V2, shell=shell)
"""Version 2 deployed in place of version 1: the same name, so it finds version 1's stored runs."""


DURABLE_ORDERS_WALL = attrs.evolve(
    DURABLE_ORDERS, name="tests.durable.machines:DURABLE_ORDERS_WALL", clock=time.time
)
"""The order machine with leases on wall time, as workers (on any host) read them."""
