"""A team for the inspector's tests: a grandparent delegating to the teams tests' delegator.

The delegator's child is the teams tests' child, so a run has children with children. At module level:
children load their program by name.
"""

from __future__ import annotations

import attrs

from agentsm_fn import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.teams import ChildOutcome, delegate
from tests.teams.programs import DELEGATOR, DELEGATOR_MACHINE, PE, ROWS, Boss, P


def _kept(boss: Boss, outcome: ChildOutcome) -> Boss:
    return attrs.evolve(boss, outcome=outcome)


GRAND_MACHINE: Machine[P, PE, Boss] = define_machine(
    states=P,
    events=PE,
    initial=P.ASK,
    terminals={P.DONE, P.GAVE_UP},
    table=ROWS,
    handlers={
        P.ASK: delegate(
            program=DELEGATOR.name,
            child=DELEGATOR_MACHINE,
            start=lambda boss: Boss(n=boss.n + 1),
            ends={P.DONE: PE.ANSWERED, P.GAVE_UP: PE.DECLINED},
            failed=PE.BROKE,
            cancelled=PE.STOPPED,
            merge=_kept,
        )
    },
    name="teams-grand",
)
GRAND = Durable(name="tests.inspector.teams:GRAND", machine=GRAND_MACHINE)
