"""Machines and performers the Temporal tests run, also imported by the worker subprocesses.

``orders``: START -> CHARGING (Charge, not retry-safe; a failure routes ERROR -> CANCELLED)
-> SHIPPING (Ship, retry-safe) -> DONE. Performers log every execution with its idempotency
key to ``<dir>/calls.log``; for the ``<Effect>-<order id>`` named in ``slow`` they first write
``<dir>/started-<Effect>-<order id>`` and then block (the crash test kills the worker there).
"""

from __future__ import annotations

import enum
import os
import threading
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from returns.result import Result, Success

from agentsm_fn import (
    Effect,
    Fault,
    Machine,
    Perform,
    Performers,
    define_machine,
    effectful,
    emit,
    lift,
    perform,
)
from agentsm_fn.shell import effect_key


class St(enum.Enum):
    START = "start"
    CHARGING = "charging"
    SHIPPING = "shipping"
    DONE = "done"
    CANCELLED = "cancelled"


class Ev(enum.Enum):
    GO = "go"
    CHARGED = "charged"
    SHIPPED = "shipped"
    ERROR = "error"


@attrs.frozen(kw_only=True)
class Order:
    order_id: str
    amount: int
    log: tuple[str, ...] = ()


@attrs.frozen
class Charge(Effect[str]):
    """Charge a card: not retry-safe (charging twice costs the customer)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    order_id: str
    amount: int

    def summary(self) -> str:
        return f"Charge {self.order_id}"


@attrs.frozen
class Ship(Effect[str]):
    """Ask the warehouse to ship: retry-safe (the warehouse deduplicates by key)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    retry_safe = True
    order_id: str

    def summary(self) -> str:
        return f"Ship {self.order_id}"


def started(order: Order) -> Result[Order, Fault]:
    return Success(attrs.evolve(order, log=(*order.log, "started")))


def charge(order: Order) -> Result[Perform[str, Order], Fault]:
    return perform(Charge(order.order_id, order.amount), order)


def charged(order: Order, receipt: str) -> Result[tuple[Literal[Ev.CHARGED], Order], Fault]:
    return emit(Ev.CHARGED, attrs.evolve(order, log=(*order.log, receipt)))


def ship(order: Order) -> Result[Perform[str, Order], Fault]:
    return perform(Ship(order.order_id), order)


def shipped(order: Order, parcel: str) -> Result[tuple[Literal[Ev.SHIPPED], Order], Fault]:
    return emit(Ev.SHIPPED, attrs.evolve(order, log=(*order.log, parcel)))


ORDERS = define_machine(
    name="orders",
    states=St,
    events=Ev,
    initial=St.START,
    terminals={St.DONE, St.CANCELLED},
    table={
        (St.START, Ev.GO): St.CHARGING,
        (St.CHARGING, Ev.CHARGED): St.SHIPPING,
        (St.CHARGING, Ev.ERROR): St.CANCELLED,
        (St.SHIPPING, Ev.SHIPPED): St.DONE,
    },
    handlers={
        St.START: lift(Ev.GO, started),
        St.CHARGING: effectful(charge, charged, failure_event=Ev.ERROR),
        St.SHIPPING: effectful(ship, shipped),
    },
)


def record_call(directory: Path, what: str) -> None:
    """Append ``what`` and the idempotency key it runs under to ``<directory>/calls.log`` (synced)."""
    key = effect_key()
    with (directory / "calls.log").open("a", encoding="utf-8") as log:
        log.write(f"{what} {key}\n")
        log.flush()
        os.fsync(log.fileno())


def block_if_slow(directory: Path, slow: frozenset[str], what: str, name: str) -> None:
    """If ``slow`` holds ``<what>-<name>``: write ``<directory>/started-<what>-<name>``, then block."""
    if f"{what}-{name}" in slow:
        (directory / f"started-{what}-{name}").write_text(str(os.getpid()), encoding="utf-8")
        threading.Event().wait(120)  # killed here by the crash test (bounded, in case it is not)


def order_performers(directory: Path, slow: frozenset[str] = frozenset()) -> Performers:
    """Performers of Charge and Ship that log each run (and block where ``slow`` says, as "Ship-o1")."""

    def do_charge(effect: Charge) -> str:
        record_call(directory, "Charge")
        block_if_slow(directory, slow, "Charge", effect.order_id)
        return f"receipt {effect.order_id} {effect.amount}"

    def do_ship(effect: Ship) -> str:
        record_call(directory, "Ship")
        block_if_slow(directory, slow, "Ship", effect.order_id)
        return f"parcel {effect.order_id}"

    return Performers().on(Charge, do_charge).on(Ship, do_ship)


def plain_performers() -> Performers:
    """The same outcomes with no logging: for the uninterrupted reference runs."""
    return (
        Performers()
        .on(Charge, lambda e: f"receipt {e.order_id} {e.amount}")
        .on(Ship, lambda e: f"parcel {e.order_id}")
    )


class TSt(enum.Enum):
    TRIAGE = "triage"
    WAIT_AGENT = "wait_agent"
    WAIT_MANAGER = "wait_manager"
    CLOSED = "closed"


class TEv(enum.Enum):
    NORMAL = "normal"
    URGENT = "urgent"
    ANSWERED = "answered"


@attrs.frozen(kw_only=True)
class Ticket:
    urgent: bool
    answer: str = ""


@attrs.frozen
class AskAgent(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)


@attrs.frozen
class AskSupervisor(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)


def triage(ticket: Ticket) -> Result[tuple[Literal[TEv.NORMAL, TEv.URGENT], Ticket], Fault]:
    return emit(TEv.URGENT if ticket.urgent else TEv.NORMAL, ticket)


def answered(ticket: Ticket, text: str) -> Result[tuple[Literal[TEv.ANSWERED], Ticket], Fault]:
    return emit(TEv.ANSWERED, attrs.evolve(ticket, answer=text))


def ask_agent(ticket: Ticket) -> Result[Perform[str, Ticket], Fault]:
    return perform(AskAgent(), ticket)


def ask_supervisor(ticket: Ticket) -> Result[Perform[str, Ticket], Fault]:
    return perform(AskSupervisor(), ticket)


TICKETS: Machine[TSt, TEv, Ticket] = define_machine(
    name="tickets",
    states=TSt,
    events=TEv,
    initial=TSt.TRIAGE,
    terminals={TSt.CLOSED},
    table={
        (TSt.TRIAGE, TEv.NORMAL): TSt.WAIT_AGENT,
        (TSt.TRIAGE, TEv.URGENT): TSt.WAIT_MANAGER,
        (TSt.WAIT_AGENT, TEv.ANSWERED): TSt.CLOSED,
        (TSt.WAIT_MANAGER, TEv.ANSWERED): TSt.CLOSED,
    },
    handlers={
        TSt.TRIAGE: triage,
        TSt.WAIT_AGENT: effectful(ask_agent, answered),
        TSt.WAIT_MANAGER: effectful(ask_supervisor, answered),
    },
)
"""Tickets wait for a human: an agent for normal ones, a supervisor for urgent ones."""

TICKETS_URGENT_TO_AGENTS = TICKETS.extend(
    rows={(TSt.TRIAGE, TEv.URGENT): TSt.WAIT_AGENT}, remove_rows=[(TSt.TRIAGE, TEv.URGENT)]
)
"""The changed table: urgent tickets go to an agent too."""
