"""Private: a tiny machine with one effectful state, for the kit's doctests and tests.

``COUNTER`` starts in IDLE, then COUNTING asks :class:`Roll` for a number until
three rolls are summed (or a roll of 0 aborts), then DONE or ABORTED.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Literal

import attrs
from hypothesis import strategies as st
from returns.result import Result

from agentsm_fn.core.effects import Effect, Perform
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import effectful, emit, perform, pure
from agentsm_fn.core.machine import define_machine


class S(enum.Enum):
    """States of the counter."""

    IDLE = "Idle"
    COUNTING = "Counting"
    DONE = "Done"
    ABORTED = "Aborted"


class E(enum.Enum):
    """Events of the counter."""

    START = "start"
    ROLLED = "rolled"
    ENOUGH = "enough"
    ZERO = "zero"


@attrs.frozen
class Roll(Effect[int]):
    """Ask the world for a die roll (0 means the die fell off the table)."""

    outcome_types: ClassVar[tuple[type, ...]] = (int,)


@attrs.frozen(kw_only=True)
class Tally:
    """The counter's memory."""

    rolls: int = 0
    total: int = 0
    limit: int = 3


def idle(m: Tally) -> Result[tuple[Literal[E.START], Tally], Fault]:
    """Start counting."""
    return emit(E.START, m)


def counting(m: Tally) -> Result[tuple[Literal[E.ENOUGH], Tally] | Perform[int, Tally], Fault]:
    """Roll until ``limit`` rolls are in."""
    if m.rolls >= m.limit:
        return emit(E.ENOUGH, m)
    return perform(Roll(), m)


def counted(m: Tally, roll: int) -> Result[tuple[Literal[E.ROLLED, E.ZERO], Tally], Fault]:
    """Add a roll; a zero aborts."""
    if roll == 0:
        return emit(E.ZERO, m)
    return emit(E.ROLLED, attrs.evolve(m, rolls=m.rolls + 1, total=m.total + roll))


COUNTER = define_machine(
    name="counter",
    states=S,
    events=E,
    initial=S.IDLE,
    terminals={S.DONE, S.ABORTED},
    table={
        (S.IDLE, E.START): S.COUNTING,
        (S.COUNTING, E.ROLLED): S.COUNTING,
        (S.COUNTING, E.ENOUGH): S.DONE,
        (S.COUNTING, E.ZERO): S.ABORTED,
    },
    handlers={S.IDLE: pure(idle), S.COUNTING: effectful(counting, counted)},
    budgeted={S.COUNTING},
)


def counters() -> st.SearchStrategy[Tally]:
    """Start memories for the counter."""
    return st.builds(Tally, limit=st.integers(0, 4))
