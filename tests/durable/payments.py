"""A user machine whose every effect is not retry-safe: pay ``count`` times in a row.

Each ``Pay`` writes one line to an external ledger (a file: ``<idempotency key> <payment>``)
before it returns its receipt, so a test can tell how often each payment really happened. A
payment whose outcome is unknown (in flight when its process died) takes the machine's unknown
route: the payment is noted as unknown in memory and the run goes on with the next one.

The ledger is the file named by ``PAYMENTS_LEDGER``; ``PAYMENTS_DIE_IN`` set to ``before N`` or
``after N`` kills the process (SIGKILL) just before or after payment N writes its ledger line;
with ``PAYMENTS_GATE`` set, a payment waits (up to a minute) until that file exists; with
``PAYMENTS_DELAY`` set, a payment takes that many seconds, half before and half after its ledger line.
"""

from __future__ import annotations

import asyncio
import enum
import os
import signal
import time
from pathlib import Path
from typing import ClassVar, Literal

import attrs
from pyrsistent import PVector, pvector
from returns.result import Result

from agentsm_fn.core import Effect, EffectFailure, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Performers, Shell, StepClock
from agentsm_fn.shell.keys import effect_key


class S(enum.Enum):
    PAYING = "paying"
    DONE = "done"


class E(enum.Enum):
    PAID = "paid"
    ALL_PAID = "all_paid"


@attrs.frozen
class Pay(Effect[str]):
    """Pay once (not retry-safe: paying twice pays twice)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str, EffectFailure)
    payment: int


@attrs.frozen(kw_only=True)
class Payments:
    count: int
    receipts: PVector[str] = attrs.field(factory=pvector)
    unknown: PVector[int] = attrs.field(factory=pvector)

    @property
    def made(self) -> int:
        return len(self.receipts) + len(self.unknown)


def pay_next(
    memory: Payments,
) -> Result[tuple[Literal[E.ALL_PAID], Payments] | Perform[str, Payments], Fault]:
    if memory.made >= memory.count:
        return emit(E.ALL_PAID, memory)
    return perform(Pay(memory.made), memory)


def paid(memory: Payments, receipt: str | EffectFailure) -> Result[tuple[Literal[E.PAID], Payments], Fault]:
    if isinstance(receipt, EffectFailure):  # the unknown route: noted, and the run goes on
        return emit(E.PAID, attrs.evolve(memory, unknown=memory.unknown.append(memory.made)))
    return emit(E.PAID, attrs.evolve(memory, receipts=memory.receipts.append(receipt)))


PAYMENTS: Machine[S, E, Payments] = define_machine(
    name="payments",
    states=S,
    events=E,
    initial=S.PAYING,
    terminals={S.DONE},
    table={(S.PAYING, E.PAID): S.PAYING, (S.PAYING, E.ALL_PAID): S.DONE},
    handlers={S.PAYING: effectful(pay_next, paid)},
    safety_cap=lambda memory: 10 + 2 * memory.count,
)


def ledger_lines(ledger: Path) -> list[str]:
    """Every payment the ledger holds, one ``<key> <payment>`` line each (empty if none yet)."""
    return ledger.read_text(encoding="utf-8").splitlines() if ledger.exists() else []


def _pay(effect: Pay) -> str:
    key = effect_key()
    die = os.environ.get("PAYMENTS_DIE_IN", "")
    if die == f"before {effect.payment}":
        os.kill(os.getpid(), signal.SIGKILL)
    gate = os.environ.get("PAYMENTS_GATE")
    deadline = time.monotonic() + 60
    while gate and not Path(gate).exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # the test opens the gate when it has seen this payment start
    delay = float(os.environ.get("PAYMENTS_DELAY", "0")) / 2
    time.sleep(delay)  # the external system at work: a kill may land before or after the payment
    with Path(os.environ["PAYMENTS_LEDGER"]).open("a", encoding="utf-8") as ledger:
        ledger.write(f"{key} {effect.payment}\n")
    time.sleep(delay)
    if die == f"after {effect.payment}":
        os.kill(os.getpid(), signal.SIGKILL)
    return f"receipt-{key}"


async def _apay(effect: Pay) -> str:
    """:func:`_pay` that waits for the gate on the event loop (a worker's other work goes on)."""
    gate, deadline = os.environ.get("PAYMENTS_GATE"), time.monotonic() + 60
    while gate and not Path(gate).exists() and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    return _pay(effect)


def shell() -> Shell:
    return Shell(Performers().on(Pay, _pay), StepClock(start=100.0))


def async_shell() -> Shell:
    return Shell(Performers().on_async(Pay, _apay), StepClock(start=100.0))


DURABLE_PAYMENTS = Durable(
    name="tests.durable.payments:DURABLE_PAYMENTS", machine=PAYMENTS, shell=shell, clock=time.time
)
ASYNC_PAYMENTS = Durable(
    name="tests.durable.payments:ASYNC_PAYMENTS", machine=PAYMENTS, shell=async_shell, clock=time.time
)
"""The same payments with a coroutine performer: waiting at the gate, it leaves the event loop free."""
