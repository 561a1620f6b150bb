"""Machines the inspector's tests and benchmark store runs of.

``COUNTER`` counts to its memory's ``target``, one ``Tick`` effect a step, so a run has
as many steps as asked (1,000 for the benchmark). Its graph has what the verifier flags:
the counting loop has no budget, ``Tick`` has no failure route, and ``LOST`` cannot be reached.
Its memory stays the same size. ``TRANSFERS`` is the other shape: its memory grows as the run
goes (a receipt in a persistent vector and a note in a tuple every other step), as every
agent's history does.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from pyrsistent import PVector, pvector
from returns.result import Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform, pure
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Performers, Shell


class C(enum.Enum):
    COUNTING = "counting"
    DONE = "done"
    LOST = "lost"


class Ev(enum.Enum):
    TICKED = "ticked"
    FINISHED = "finished"


@attrs.frozen
class Tick(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    n: int


@attrs.frozen(kw_only=True)
class Count:
    target: int
    n: int = 0
    note: str = ""
    seen: tuple[int, ...] = ()


def tick(memory: Count) -> Result[Perform[int, Count], Fault]:
    return perform(Tick(memory.n), memory)


def ticked(memory: Count, value: int) -> Result[tuple[Literal[Ev.TICKED, Ev.FINISHED], Count], Fault]:
    counted = attrs.evolve(memory, n=memory.n + 1, seen=(*memory.seen[-4:], value))
    return emit(Ev.FINISHED if counted.n >= memory.target else Ev.TICKED, counted)


COUNTER_MACHINE: Machine[C, Ev, Count] = define_machine(
    name="counter",
    states=C,
    events=Ev,
    initial=C.COUNTING,
    terminals={C.DONE, C.LOST},
    table={(C.COUNTING, Ev.TICKED): C.COUNTING, (C.COUNTING, Ev.FINISHED): C.DONE},
    handlers={C.COUNTING: effectful(tick, ticked)},
    safety_cap=1_000_000,
)


def _shell() -> Shell:
    return Shell(Performers().on(Tick, lambda effect: effect.n * 2))


COUNTER = Durable(name="tests.inspector.machines:COUNTER", machine=COUNTER_MACHINE, shell=_shell)


class T(enum.Enum):
    CHECKING = "checking"
    SENDING = "sending"
    DONE = "done"


class TEv(enum.Enum):
    CHECKED = "checked"
    SENT = "sent"
    ALL_SENT = "all_sent"


@attrs.frozen
class Send(Effect[str]):
    """Send one transfer; the bank answers with its receipt's id."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    retry_safe = True
    transfer: int
    amount: int


@attrs.frozen(kw_only=True)
class Receipt:
    transfer: int
    amount: int
    bank_id: str


@attrs.frozen(kw_only=True)
class Transfers:
    """A memory that grows as the run goes, as an agent's history does: a receipt and a note per transfer."""

    count: int
    receipts: PVector[Receipt] = attrs.field(factory=pvector)
    notes: tuple[str, ...] = ()
    checked: int = 0


def check(memory: Transfers) -> Result[tuple[Literal[TEv.CHECKED, TEv.ALL_SENT], Transfers], Fault]:
    if len(memory.receipts) >= memory.count:
        return emit(TEv.ALL_SENT, memory)
    return emit(TEv.CHECKED, attrs.evolve(memory, checked=memory.checked + 1))


def send(memory: Transfers) -> Result[Perform[str, Transfers], Fault]:
    n = len(memory.receipts)
    return perform(Send(n, 100 + n % 7), memory)


def sent(memory: Transfers, bank_id: str) -> Result[tuple[Literal[TEv.SENT], Transfers], Fault]:
    n = len(memory.receipts)
    receipt = Receipt(transfer=n, amount=100 + n % 7, bank_id=bank_id)
    return emit(
        TEv.SENT,
        attrs.evolve(
            memory,
            receipts=memory.receipts.append(receipt),
            notes=(*memory.notes, f"transfer {n} sent: {bank_id}"),
        ),
    )


TRANSFERS_MACHINE: Machine[T, TEv, Transfers] = define_machine(
    name="transfers",
    states=T,
    events=TEv,
    initial=T.CHECKING,
    terminals={T.DONE},
    table={
        (T.CHECKING, TEv.CHECKED): T.SENDING,
        (T.CHECKING, TEv.ALL_SENT): T.DONE,
        (T.SENDING, TEv.SENT): T.CHECKING,
    },
    handlers={T.CHECKING: pure(check), T.SENDING: effectful(send, sent)},
    safety_cap=lambda memory: 10 + 2 * memory.count,
)


def _bank() -> Shell:
    return Shell(Performers().on(Send, lambda effect: f"bank-{effect.transfer:06d}"))


TRANSFERS = Durable(name="tests.inspector.machines:TRANSFERS", machine=TRANSFERS_MACHINE, shell=_bank)
"""Transfers that append a receipt every other step: ``count`` transfers take ``2 * count + 1`` steps."""
