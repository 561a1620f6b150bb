"""Compose pure handlers into a machine, extend it, run it, print its trace, replay it.

A refund request is checked by rules (pure), large refunds ask a human (an effect
the shell performs), and a second machine extends the first with a fraud check.

Run: ``python examples/refund_workflow.py``
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from returns.result import Result, Success

from agentsm_fn import (
    Effect,
    Fault,
    Machine,
    Perform,
    Performers,
    Shell,
    StepClock,
    begin,
    choose,
    define_machine,
    effectful,
    emit,
    lift,
    perform,
    replay,
    run,
)


class St(enum.Enum):
    RECEIVED = "Received"
    CHECKING = "Checking"
    ASK_MANAGER = "AskManager"
    PAID = "Paid"
    REFUSED = "Refused"


class Ev(enum.Enum):
    CHECK = "check"
    SMALL = "small"
    LARGE = "large"
    APPROVED = "approved"
    DENIED = "denied"


@attrs.frozen(kw_only=True)
class Refund:
    amount: int
    notes: tuple[str, ...] = ()


@attrs.frozen
class AskManager(Effect[bool]):
    """Effect: a manager approves (True) or denies (False) a refund."""

    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    amount: int

    def summary(self) -> str:
        return f"AskManager amount={self.amount}"


def ask(r: Refund) -> Result[Perform[bool, Refund], Fault]:
    return perform(AskManager(r.amount), r)


def answered(r: Refund, approved: bool) -> Result[tuple[Literal[Ev.APPROVED, Ev.DENIED], Refund], Fault]:
    noted = attrs.evolve(r, notes=(*r.notes, f"manager: {approved}"))
    return emit(Ev.APPROVED if approved else Ev.DENIED, noted)


def received(r: Refund) -> Result[Refund, Fault]:
    return Success(attrs.evolve(r, notes=(*r.notes, "received")))


REFUNDS: Machine[St, Ev, Refund] = define_machine(
    name="refunds",
    states=St,
    events=Ev,
    initial=St.RECEIVED,
    terminals={St.PAID, St.REFUSED},
    table={
        (St.RECEIVED, Ev.CHECK): St.CHECKING,
        (St.CHECKING, Ev.SMALL): St.PAID,
        (St.CHECKING, Ev.LARGE): St.ASK_MANAGER,
        (St.ASK_MANAGER, Ev.APPROVED): St.PAID,
        (St.ASK_MANAGER, Ev.DENIED): St.REFUSED,
    },
    handlers={
        St.RECEIVED: lift(Ev.CHECK, received),
        St.CHECKING: choose((lambda r: r.amount > 100, Ev.LARGE), otherwise=Ev.SMALL),
        St.ASK_MANAGER: effectful(ask, answered, failure_event=Ev.DENIED),
    },
    narrate=lambda state, event, r: f"amount={r.amount} notes={len(r.notes)}",
)

# Extending gives a new frozen machine; REFUNDS is unchanged.
STRICT_REFUNDS = REFUNDS.extend(
    name="strict-refunds",
    handlers={St.CHECKING: choose((lambda r: r.amount > 20, Ev.LARGE), otherwise=Ev.SMALL)},
)


def main() -> None:
    manager = Shell(Performers().on(AskManager, lambda e: e.amount < 500), StepClock(start=1_700_000_000.0))
    for machine, amount in [(REFUNDS, 50), (REFUNDS, 250), (STRICT_REFUNDS, 50), (REFUNDS, 900)]:
        done = run(machine, Refund(amount=amount), manager).unwrap()
        print(f"\n{machine.name}: refund of {amount} -> {done.state.value}  notes={done.memory.notes}")
        print(done.trace.render())
        assert replay(machine, begin(machine, Refund(amount=amount)), done.journal) == Success(done)
    print("\nEvery run above replays from its journal to the identical snapshot, with no IO.")


if __name__ == "__main__":
    main()
