"""Private: the two tiny machines the verifier's doctests share, so each doctest shows only its point.

``ONE_STEP`` (named "tiny")::

    A --GO--> B        A initial, B terminal

``RETRY`` (named "retry")::

    A --GO--> B        A initial and budgeted, B terminal
    A --AGAIN--> A     the loop the budget bounds

``PLAN_ACT`` (named "plan-act")::

    PLAN --GO--> ACT --GO--> PLAN      PLAN initial and budgeted
    PLAN --END--> DONE, ACT --END--> DONE      DONE terminal

``DELEGATING`` (named "parent")::

    WAITING --BROKE--> DONE        WAITING delegates to ONE_STEP (program "pkg.child:RUN"),
                                   mapping no terminal (ends={}: B is unmapped, SM016);
                                   failed and cancelled emit BROKE

``HANDOFF_LOOP``, a team: agents ``triage`` and ``refunds``, each ``ONE_STEP``, each handing the
conversation to the other when it reaches B: no agent can ever finish (SM017).

``m.extend(budgeted=())`` is either loop with no budget (SM009).
Doctests with another shape in mind build their own machine inline.

Example:
    >>> sorted((s.name, e.name, t.name) for (s, e), t in RETRY.table.items())
    [('A', 'AGAIN', 'A'), ('A', 'GO', 'B')]
"""

from __future__ import annotations

import enum
from typing import Literal

from returns.result import Result

from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import emit, pure
from agentsm_fn.core.machine import define_machine
from agentsm_fn.teams import delegate
from agentsm_fn.teams.team import Handoff, Team

__all__ = [
    "DELEGATING",
    "E",
    "HANDOFF_LOOP",
    "ONE_STEP",
    "PLAN_ACT",
    "RETRY",
    "S",
    "ParentE",
    "ParentS",
    "PlanActE",
    "PlanActS",
    "RetryE",
]


class S(enum.Enum):
    """States of both machines."""

    A = 1
    B = 2


class E(enum.Enum):
    """Events of ``ONE_STEP``."""

    GO = 1


class RetryE(enum.Enum):
    """Events of ``RETRY``."""

    GO = 1
    AGAIN = 2


class PlanActS(enum.Enum):
    """States of ``PLAN_ACT``."""

    PLAN = 1
    ACT = 2
    DONE = 3


class PlanActE(enum.Enum):
    """Events of ``PLAN_ACT``."""

    GO = 1
    END = 2


def _go(n: int) -> Result[tuple[Literal[E.GO], int], Fault]:
    return emit(E.GO, n)


def _go_or_again(n: int) -> Result[tuple[Literal[RetryE.GO, RetryE.AGAIN], int], Fault]:
    return emit(RetryE.GO, n)


def _go_or_end(n: int) -> Result[tuple[Literal[PlanActE.GO, PlanActE.END], int], Fault]:
    return emit(PlanActE.GO, n)


ONE_STEP = define_machine(
    name="tiny",
    states=S,
    events=E,
    initial=S.A,
    terminals={S.B},
    table={(S.A, E.GO): S.B},
    handlers={S.A: pure(_go)},
)
"""A --GO--> B: one transition, everything proved."""

RETRY = define_machine(
    name="retry",
    states=S,
    events=RetryE,
    initial=S.A,
    terminals={S.B},
    table={(S.A, RetryE.GO): S.B, (S.A, RetryE.AGAIN): S.A},
    handlers={S.A: pure(_go_or_again)},
    budgeted={S.A},
)
"""A --GO--> B and A --AGAIN--> A, with A budgeted: a bounded retry loop."""

_P, _E = PlanActS, PlanActE
PLAN_ACT = define_machine(
    name="plan-act",
    states=PlanActS,
    events=PlanActE,
    initial=_P.PLAN,
    terminals={_P.DONE},
    table={
        (_P.PLAN, _E.GO): _P.ACT,
        (_P.PLAN, _E.END): _P.DONE,
        (_P.ACT, _E.GO): _P.PLAN,
        (_P.ACT, _E.END): _P.DONE,
    },
    handlers={_P.PLAN: pure(_go_or_end), _P.ACT: pure(_go_or_end)},
    budgeted={_P.PLAN},
)
"""PLAN and ACT in a loop that PLAN's budget bounds; either can end in DONE."""


class ParentS(enum.Enum):
    """States of ``DELEGATING``."""

    WAITING = 1
    DONE = 2


class ParentE(enum.Enum):
    """Events of ``DELEGATING``."""

    FINISHED = 1
    BROKE = 2


DELEGATING = define_machine(
    name="parent",
    states=ParentS,
    events=ParentE,
    initial=ParentS.WAITING,
    terminals={ParentS.DONE},
    table={(ParentS.WAITING, ParentE.BROKE): ParentS.DONE},
    handlers={
        ParentS.WAITING: delegate(
            program="pkg.child:RUN",
            child=ONE_STEP,
            start=lambda memory: memory,
            ends={},
            failed=ParentE.BROKE,
            cancelled=ParentE.BROKE,
            merge=lambda memory, outcome: memory,
        )
    },
)
"""WAITING delegates to ``ONE_STEP`` and maps none of its terminals: B is unmapped (SM016)."""

HANDOFF_LOOP = Team(
    agents={"triage": ONE_STEP, "refunds": ONE_STEP},
    handoffs=(
        Handoff(source="triage", target="refunds", machine=ONE_STEP, at=S.B),
        Handoff(source="refunds", target="triage", machine=ONE_STEP, at=S.B),
    ),
    name="loop",
)
"""Two agents that hand the conversation to each other whenever they end: no agent can finish."""
