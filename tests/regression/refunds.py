"""A refund desk for the regression tests, in four versions: as recorded, refactored, and two planted changes.

The desk classifies a message (an LLM-like effect), looks the order up, asks a person to approve
a refund over the limit, and refunds. ``REFUNDS`` is the code the recordings are made with;
``REFACTORED`` is the same behaviour written differently (helpers extracted, other handler names);
``OVERPAYS`` plants a handler change (the refund asks for one more than the order's amount);
``STRICT`` plants a routing change (approval above 50 instead of 100); ``FORGETFUL`` changes only
what the run remembers (the note it keeps).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import ClassVar, Literal

import attrs
from pyrsistent import PVector, pvector
from returns.result import Result

from agentsm_fn.core import SUSPEND, Effect, Fault, Perform, effectful, emit, perform, pure
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.shell import Performers, Shell, StepClock


class S(enum.Enum):
    START = "start"
    READING = "reading"
    LOOKING = "looking"
    APPROVING = "approving"
    REFUNDING = "refunding"
    DONE = "done"


class E(enum.Enum):
    BEGIN = "begin"
    REFUND = "refund"
    OTHER = "other"
    FOUND = "found"
    LARGE = "large"
    APPROVED = "approved"
    DENIED = "denied"
    REFUNDED = "refunded"


@attrs.frozen
class Classify(Effect[str]):
    """Ask a model what a message wants (``refund`` or anything else)."""

    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    model: str
    prompt: str


@attrs.frozen
class Lookup(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    order: str


@attrs.frozen
class Approve(Effect[bool]):
    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    order: str
    amount: int


@attrs.frozen
class Refund(Effect[str]):
    outcome_types: ClassVar[tuple[type, ...]] = (str,)
    order: str
    amount: int


@attrs.frozen(kw_only=True)
class Desk:
    message: str
    order: str
    amount: int = 0
    limit: int = 100
    receipt: str = ""
    notes: PVector[str] = attrs.field(factory=pvector)


def begin(desk: Desk) -> Result[tuple[Literal[E.BEGIN], Desk], Fault]:
    return emit(E.BEGIN, desk)


def classify(desk: Desk) -> Result[Perform[str, Desk], Fault]:
    return perform(Classify(model="small", prompt=f"Label this message: {desk.message}"), desk)


def classified(desk: Desk, label: str) -> Result[tuple[Literal[E.REFUND, E.OTHER], Desk], Fault]:
    noted = attrs.evolve(desk, notes=desk.notes.append(f"classified {label}"))
    return emit(E.REFUND if label == "refund" else E.OTHER, noted)


def look_up(desk: Desk) -> Result[Perform[int, Desk], Fault]:
    return perform(Lookup(desk.order), desk)


def found(desk: Desk, amount: int) -> Result[tuple[Literal[E.FOUND, E.LARGE], Desk], Fault]:
    if amount < 0:
        raise ValueError(f"order {desk.order} has a negative amount")
    return emit(E.LARGE if amount > desk.limit else E.FOUND, attrs.evolve(desk, amount=amount))


def ask(desk: Desk) -> Result[Perform[bool, Desk], Fault]:
    return perform(Approve(desk.order, desk.amount), desk)


def answered(desk: Desk, yes: bool) -> Result[tuple[Literal[E.APPROVED, E.DENIED], Desk], Fault]:
    return emit(E.APPROVED if yes else E.DENIED, desk)


def refund(desk: Desk) -> Result[Perform[str, Desk], Fault]:
    return perform(Refund(desk.order, desk.amount), desk)


def refunded(desk: Desk, receipt: str) -> Result[tuple[Literal[E.REFUNDED], Desk], Fault]:
    return emit(E.REFUNDED, attrs.evolve(desk, receipt=receipt))


TABLE = {
    (S.START, E.BEGIN): S.READING,
    (S.READING, E.REFUND): S.LOOKING,
    (S.READING, E.OTHER): S.DONE,
    (S.LOOKING, E.FOUND): S.REFUNDING,
    (S.LOOKING, E.LARGE): S.APPROVING,
    (S.APPROVING, E.APPROVED): S.REFUNDING,
    (S.APPROVING, E.DENIED): S.DONE,
    (S.REFUNDING, E.REFUNDED): S.DONE,
}


Looked = Callable[[Desk, int], Result[tuple[Literal[E.FOUND, E.LARGE], Desk], Fault]]
Paid = Callable[[Desk], Result[Perform[str, Desk], Fault]]
Read = Callable[[Desk, str], Result[tuple[Literal[E.REFUND, E.OTHER], Desk], Fault]]


def desk_machine(*, look: Looked = found, pay: Paid = refund, read: Read = classified) -> Machine[S, E, Desk]:
    return define_machine(
        name="refunds",
        states=S,
        events=E,
        initial=S.START,
        terminals={S.DONE},
        table=TABLE,
        handlers={
            S.START: pure(begin),
            S.READING: effectful(classify, read),
            S.LOOKING: effectful(look_up, look),
            S.APPROVING: effectful(ask, answered),
            S.REFUNDING: effectful(pay, refunded),
        },
    )


PRICES = {"o-1": 40, "o-3": 70, "o-bad": -1}


def shell() -> Shell:
    """Scripted performers: the model says "refund" if asked for one; o-1 costs 40, o-3 70, others 120."""
    performers = (
        Performers()
        .on(Classify, lambda effect: "refund" if "refund" in effect.prompt.lower() else "other")
        .on(Lookup, lambda effect: PRICES.get(effect.order, 120))
        .on(Approve, lambda effect: SUSPEND)
        .on(Refund, lambda effect: f"R-{effect.order}-{effect.amount}")
    )
    return Shell(performers, StepClock(start=1000.0))


REFUNDS = Durable(name="tests.regression.refunds:REFUNDS", machine=desk_machine(), shell=shell)


# ---- the same behaviour, written differently -------------------------------------------------------------


def _over(desk: Desk, amount: int) -> bool:
    return amount > desk.limit


def priced(desk: Desk, amount: int) -> Result[tuple[Literal[E.FOUND, E.LARGE], Desk], Fault]:
    if amount < 0:
        raise ValueError(f"order {desk.order} has a negative amount")
    event: Literal[E.FOUND, E.LARGE] = E.LARGE if _over(desk, amount) else E.FOUND
    return emit(event, attrs.evolve(desk, amount=amount))


REFACTORED = Durable(
    name="tests.regression.refunds:REFACTORED", machine=desk_machine(look=priced), shell=shell
)


# ---- planted changes -------------------------------------------------------------------------------------


def overpay(desk: Desk) -> Result[Perform[str, Desk], Fault]:
    return perform(Refund(desk.order, desk.amount + 1), desk)


def strict(desk: Desk, amount: int) -> Result[tuple[Literal[E.FOUND, E.LARGE], Desk], Fault]:
    return emit(E.LARGE if amount > 50 else E.FOUND, attrs.evolve(desk, amount=amount))


def terse(desk: Desk, label: str) -> Result[tuple[Literal[E.REFUND, E.OTHER], Desk], Fault]:
    return emit(
        E.REFUND if label == "refund" else E.OTHER, attrs.evolve(desk, notes=desk.notes.append(label))
    )


OVERPAYS = Durable(name="tests.regression.refunds:OVERPAYS", machine=desk_machine(pay=overpay), shell=shell)
STRICT = Durable(name="tests.regression.refunds:STRICT", machine=desk_machine(look=strict), shell=shell)
FORGETFUL = Durable(name="tests.regression.refunds:FORGETFUL", machine=desk_machine(read=terse), shell=shell)


def crash(desk: Desk, amount: int) -> Result[tuple[Literal[E.FOUND, E.LARGE], Desk], Fault]:
    raise KeyError(desk.order)


CRASHES = Durable(name="tests.regression.refunds:CRASHES", machine=desk_machine(look=crash), shell=shell)
