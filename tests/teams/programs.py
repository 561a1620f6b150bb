"""Durable programs of the teams tests: a child that does one unsafe effect, a delegating parent, a fan-out.

They live at module level so every process (workers, a killed parent's successor) loads them by
name. The child's ``Note`` effect is not retry-safe; its performer appends the child's number to
the file ``TEAMS_NOTES`` names (when set), so a test can count how often each child's effect ran.
"""

from __future__ import annotations

import asyncio
import enum
import os
from typing import ClassVar

import attrs
from returns.result import Failure, Result

from agentsm_fn import Effect, Fault, Perform, Performers, Shell, define_machine, effectful, emit, perform
from agentsm_fn.core import SUSPEND
from agentsm_fn.durable import Durable
from agentsm_fn.teams import ChildOutcome, FanningOut, Gathered, GatherPolicy, delegate, fan_out

NOTES_ENV = "TEAMS_NOTES"


@attrs.frozen
class Note(Effect[int]):
    """Write the child's number down (not retry-safe: a second write is a second effect)."""

    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    n: int


def _note(effect: Note) -> int:
    path = os.environ.get(NOTES_ENV)
    if path:
        with open(path, "a", encoding="utf-8") as notes:
            notes.write(f"{effect.n}\n")
    return effect.n * 2


class C(enum.Enum):
    WORK = 1
    DONE = 2
    REFUSED = 3


class CE(enum.Enum):
    FINISH = 1
    REFUSE = 2


def _work(n: int) -> Result[tuple[CE, int] | Perform[int, int], Fault]:
    if n < 0:
        return emit(CE.REFUSE, n)
    if n == 13:
        return Failure(Fault("thirteen is unlucky"))
    return perform(Note(n), n)


def _noted(n: int, doubled: int) -> Result[tuple[CE, int], Fault]:
    return emit(CE.FINISH, doubled)


CHILD_MACHINE = define_machine(
    states=C,
    events=CE,
    initial=C.WORK,
    terminals={C.DONE, C.REFUSED},
    table={(C.WORK, CE.FINISH): C.DONE, (C.WORK, CE.REFUSE): C.REFUSED},
    handlers={C.WORK: effectful(_work, _noted, events={CE.FINISH, CE.REFUSE})},
    name="teams-child",
)
CHILD = Durable(
    name="tests.teams.programs:CHILD",
    machine=CHILD_MACHINE,
    shell=lambda: Shell(Performers().on(Note, _note)),
    result=lambda n: n,
)


@attrs.frozen(kw_only=True)
class Boss:
    """A parent's memory: its number, its items, and what its children gave."""

    n: int = 0
    items: tuple[int, ...] = ()
    outcome: ChildOutcome | None = None
    gathered: Gathered | None = None


class P(enum.Enum):
    ASK = 1
    DONE = 2
    GAVE_UP = 3


class PE(enum.Enum):
    ANSWERED = 1
    DECLINED = 2
    BROKE = 3
    STOPPED = 4


def _kept(memory: Boss, outcome: ChildOutcome) -> Boss:
    return attrs.evolve(memory, outcome=outcome)


def _gathered(memory: Boss, gathered: Gathered) -> Boss:
    return attrs.evolve(memory, gathered=gathered)


ROWS = {
    (P.ASK, PE.ANSWERED): P.DONE,
    (P.ASK, PE.DECLINED): P.DONE,
    (P.ASK, PE.BROKE): P.GAVE_UP,
    (P.ASK, PE.STOPPED): P.GAVE_UP,
}
DELEGATOR_MACHINE = define_machine(
    states=P,
    events=PE,
    initial=P.ASK,
    terminals={P.DONE, P.GAVE_UP},
    table=ROWS,
    handlers={
        P.ASK: delegate(
            program=CHILD.name,
            child=CHILD_MACHINE,
            start=lambda boss: boss.n,
            ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
            failed=PE.BROKE,
            cancelled=PE.STOPPED,
            merge=_kept,
        )
    },
    name="teams-delegator",
)
DELEGATOR = Durable(name="tests.teams.programs:DELEGATOR", machine=DELEGATOR_MACHINE)


def _fan(policy: GatherPolicy, limit: int) -> FanningOut[PE, Boss, C, CE, int]:
    return fan_out(
        program=CHILD.name,
        child=CHILD_MACHINE,
        items=lambda boss: boss.items,
        all_finished=PE.ANSWERED,
        some_failed=PE.BROKE,
        limit=limit,
        policy=policy,
        merge=_gathered,
    )


FANNER_MACHINE = define_machine(
    states=P,
    events=PE,
    initial=P.ASK,
    terminals={P.DONE, P.GAVE_UP},
    table={(P.ASK, PE.ANSWERED): P.DONE, (P.ASK, PE.BROKE): P.GAVE_UP},
    handlers={P.ASK: _fan(GatherPolicy.GO_ON, 3)},
    name="teams-fanner",
)
FANNER = Durable(name="tests.teams.programs:FANNER", machine=FANNER_MACHINE)
STRICT_MACHINE = FANNER_MACHINE.extend(handlers={P.ASK: _fan(GatherPolicy.CANCEL_REST, 1)})
STRICT = Durable(name="tests.teams.programs:STRICT", machine=STRICT_MACHINE)
WIDE_MACHINE = FANNER_MACHINE.extend(handlers={P.ASK: _fan(GatherPolicy.GO_ON, 10)})
WIDE = Durable(name="tests.teams.programs:WIDE", machine=WIDE_MACHINE)


@attrs.frozen
class Approve(Effect[bool]):
    """Ask a person to approve the child's number (it waits for their answer: ``durable.answer``)."""

    outcome_types: ClassVar[tuple[type, ...]] = (bool,)
    n: int


def _ask(n: int) -> Result[tuple[CE, int] | Perform[bool, int], Fault]:
    return perform(Approve(n), n)


def _approved(n: int, yes: bool) -> Result[tuple[CE, int], Fault]:
    return emit(CE.FINISH if yes else CE.REFUSE, n * 10)


ASKING_MACHINE = CHILD_MACHINE.extend(
    handlers={C.WORK: effectful(_ask, _approved, events={CE.FINISH, CE.REFUSE})}, name="teams-asking"
)
ASKING = Durable(
    name="tests.teams.programs:ASKING",
    machine=ASKING_MACHINE,
    shell=lambda: Shell(Performers().on(Approve, lambda effect: SUSPEND)),
    result=lambda n: n,
)

ASKER_MACHINE = DELEGATOR_MACHINE.extend(
    handlers={
        P.ASK: delegate(
            program=ASKING.name,
            child=ASKING_MACHINE,
            start=lambda boss: boss.n,
            ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
            failed=PE.BROKE,
            cancelled=PE.STOPPED,
            merge=_kept,
        )
    },
    name="teams-asker",
)
ASKER = Durable(name="tests.teams.programs:ASKER", machine=ASKER_MACHINE)
GRAND_MACHINE = DELEGATOR_MACHINE.extend(
    handlers={
        P.ASK: delegate(
            program=ASKER.name,
            child=ASKER_MACHINE,
            start=lambda boss: boss,
            ends={P.DONE: PE.ANSWERED, P.GAVE_UP: PE.BROKE},
            failed=PE.BROKE,
            cancelled=PE.STOPPED,
            merge=_kept,
        )
    },
    name="teams-grand",
)
GRAND = Durable(name="tests.teams.programs:GRAND", machine=GRAND_MACHINE)


MEETING_BARRIER: list[asyncio.Barrier] = []
"""Set by a test: each MEETING child's effect waits at it, so the children must run at the same time."""


async def _meet(effect: Note) -> int:
    for barrier in MEETING_BARRIER:
        await asyncio.wait_for(barrier.wait(), timeout=30)  # a bound on a failure, not a delay
    return effect.n * 2


MEETING = Durable(
    name="tests.teams.programs:MEETING",
    machine=CHILD_MACHINE,
    shell=lambda: Shell(Performers().on_async(Note, _meet)),
    result=lambda n: n,
)
MEET = Durable(
    name="tests.teams.programs:MEET",
    machine=FANNER_MACHINE.extend(
        handlers={
            P.ASK: fan_out(
                program=MEETING.name,
                child=CHILD_MACHINE,
                items=lambda boss: boss.items,
                all_finished=PE.ANSWERED,
                some_failed=PE.BROKE,
                limit=3,
                policy=GatherPolicy.GO_ON,
                merge=_gathered,
            )
        },
        name="teams-meet",
    ),
)
