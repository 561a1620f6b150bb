"""Teams for the verifier's tests: a parent that delegates to a child, planted defects, handoff teams.

``CHILD`` (program ``tests.verification.team_machines:CHILD_RUN``) ends APPROVED when its memory is
positive, else REFUSED. ``PARENT`` maps both, its failure and its cancellation to rows;
``PARENT_UNMAPPED`` forgets REFUSED (SM016; a cancelled child is its REJECTED); ``PARENT_NO_ROW``
maps REFUSED to NO, which has no row (SM016). ``GRANDPARENT`` delegates to ``PARENT`` (children
nested 2 deep); ``RECURSIVE`` delegates to itself (SM018). ``FANNING`` fans out to ``CHILD`` over
its memory's items. ``CHILD_RUN`` is the child as a durable program. ``LOOPING_TEAM`` hands the
conversation between two agents that cannot finish (SM017); ``TEAM`` is the same with a way to
finish.
"""

from __future__ import annotations

import enum

from returns.result import Result

from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, pure
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.running.program import DurableProgram
from agentsm_fn.teams import ChildOutcome, Gathered, delegate, fan_out
from agentsm_fn.teams.team import Handoff, Team

PROGRAM = "tests.verification.team_machines:CHILD_RUN"


class C(enum.Enum):
    """The child's states."""

    WORK = 1
    APPROVED = 2
    REFUSED = 3


class CE(enum.Enum):
    """The child's events."""

    APPROVE = 1
    REFUSE = 2


def work(n: int) -> Result[tuple[CE, int], Fault]:
    """Approve a positive memory, refuse any other."""
    return emit(CE.APPROVE if n > 0 else CE.REFUSE, n)


CHILD = define_machine(
    name="child",
    states=C,
    events=CE,
    initial=C.WORK,
    terminals={C.APPROVED, C.REFUSED},
    table={(C.WORK, CE.APPROVE): C.APPROVED, (C.WORK, CE.REFUSE): C.REFUSED},
    handlers={C.WORK: pure(work, events={CE.APPROVE, CE.REFUSE})},
)


def verdict(n: int) -> str:
    """The child program's result: a word for its number."""
    return f"verdict on {n}"


def refused_is_failure(snapshot: Snapshot[C, int]) -> str | None:
    """A refusal the program stores as a failed run (only for numbers below -1)."""
    return "refused" if snapshot.state is C.REFUSED and snapshot.memory < -1 else None


CHILD_RUN = DurableProgram(name=PROGRAM, machine=CHILD, result=verdict, failure=refused_is_failure)
"""The child as a durable program: its result is a verdict, a refusal of a number below -1 a failure."""


class P(enum.Enum):
    """The parents' states."""

    ASKING = 1
    DONE = 2
    REJECTED = 3
    ERROR = 4


class PE(enum.Enum):
    """The parents' events."""

    OK = 1
    NO = 2
    BROKE = 3


def kept(n: int, outcome: ChildOutcome) -> int:
    """The parent's memory is its number; the outcome changes nothing."""
    return n


def _parent(
    name: str, ends: dict[C, PE], rows: dict[tuple[P, PE], P], cancelled: PE = PE.BROKE
) -> Machine[P, PE, int]:
    asking = delegate(
        program=PROGRAM,
        child=CHILD,
        start=lambda n: n,
        ends=ends,
        failed=PE.BROKE,
        cancelled=cancelled,
        merge=kept,
    )
    return Machine(
        name=name,
        states=P,
        events=PE,
        initial=P.ASKING,
        terminals=frozenset({P.DONE, P.REJECTED, P.ERROR}),
        table=rows,
        handlers={P.ASKING: asking},
    )


_ROWS = {(P.ASKING, PE.OK): P.DONE, (P.ASKING, PE.NO): P.REJECTED, (P.ASKING, PE.BROKE): P.ERROR}
PARENT = _parent("parent", {C.APPROVED: PE.OK, C.REFUSED: PE.NO}, _ROWS)
PARENT_UNMAPPED = _parent("unmapped", {C.APPROVED: PE.OK}, {**_ROWS}, cancelled=PE.NO)
PARENT_NO_ROW = _parent(
    "no-row", {C.APPROVED: PE.OK, C.REFUSED: PE.NO}, {k: v for k, v in _ROWS.items() if k[1] is not PE.NO}
)
GRANDPARENT = PARENT.extend(
    name="grandparent",
    handlers={
        P.ASKING: delegate(
            program="tests.verification.team_machines:PARENT_RUN",
            child=PARENT,
            start=lambda n: n,
            ends={P.DONE: PE.OK, P.REJECTED: PE.NO, P.ERROR: PE.BROKE},
            failed=PE.BROKE,
            cancelled=PE.BROKE,
            merge=kept,
        )
    },
)


def _recursive() -> Machine[P, PE, int]:
    inner = delegate(
        program="tests.verification.team_machines:RECURSIVE_RUN",
        child=CHILD,
        start=lambda n: n,
        ends={},
        failed=PE.BROKE,
        cancelled=PE.BROKE,
        merge=kept,
    )
    machine = PARENT.extend(name="recursive", handlers={P.ASKING: inner})
    # A machine that runs itself as a child cannot be written as one frozen value: tie the knot.
    object.__setattr__(inner, "ends", {P.DONE: PE.OK, P.REJECTED: PE.NO, P.ERROR: PE.BROKE})
    object.__setattr__(inner, "child", machine)
    return machine


RECURSIVE = _recursive()


def items(n: int) -> tuple[int, ...]:
    """One child per number from 0 to n - 1 (0 is refused, the others approved)."""
    return tuple(range(n))


def gathered(n: int, outcomes: Gathered) -> int:
    """The parent's memory is its number; the outcomes change nothing."""
    return n


FANNING = Machine(
    name="fanning",
    states=P,
    events=PE,
    initial=P.ASKING,
    terminals=frozenset({P.DONE, P.REJECTED, P.ERROR}),
    table={(P.ASKING, PE.OK): P.DONE, (P.ASKING, PE.NO): P.REJECTED},
    handlers={
        P.ASKING: fan_out(
            program=PROGRAM, child=CHILD, items=items, all_finished=PE.OK, some_failed=PE.NO, merge=gathered
        )
    },
)


class A(enum.Enum):
    """An agent's states."""

    ANSWERING = 1
    HANDED_OFF = 2
    ANSWERED = 3


class AE(enum.Enum):
    """An agent's events."""

    TRANSFER = 1
    ANSWER = 2


def _agent(name: str, can_answer: bool) -> Machine[A, AE, int]:
    events = {AE.TRANSFER, AE.ANSWER} if can_answer else {AE.TRANSFER}
    table = {(A.ANSWERING, AE.TRANSFER): A.HANDED_OFF}
    if can_answer:
        table[(A.ANSWERING, AE.ANSWER)] = A.ANSWERED
    return Machine(
        name=name,
        states=A,
        events=AE,
        initial=A.ANSWERING,
        terminals=frozenset({A.HANDED_OFF, A.ANSWERED}),
        table=table,
        handlers={A.ANSWERING: pure(lambda n: emit(AE.TRANSFER, n), events=events)},
    )


TRIAGE = _agent("triage", can_answer=False)
REFUNDS = _agent("refunds", can_answer=False)
REFUNDS_ANSWERS = _agent("refunds", can_answer=True)


def _team(refunds: Machine[A, AE, int]) -> Team:
    return Team(
        agents={"app:TRIAGE": TRIAGE, "app:REFUNDS": refunds},
        handoffs=(
            Handoff(source="app:TRIAGE", target="app:REFUNDS", machine=refunds, at=A.HANDED_OFF),
            Handoff(source="app:REFUNDS", target="app:TRIAGE", machine=TRIAGE, at=A.HANDED_OFF),
        ),
    )


LOOPING_TEAM = _team(REFUNDS)
TEAM = _team(REFUNDS_ANSWERS)
BROKEN_TEAM = Team(
    agents={"app:TRIAGE": TRIAGE},
    handoffs=(Handoff(source="app:NOBODY", target="app:TRIAGE", machine=TRIAGE, at=A.HANDED_OFF),),
)
