"""A traced parent that delegates to a traced child (the teams tests' machines), loadable by name."""

from __future__ import annotations

import attrs

from agentsm_fn import Shell, StepClock
from agentsm_fn.durable import Durable
from agentsm_fn.durable.running.in_process import in_process_children
from agentsm_fn.teams import ChildOutcome, delegate
from tests.otel.spans import traced
from tests.teams.programs import CHILD, CHILD_MACHINE, DELEGATOR_MACHINE, PE, Boss, C, P

TRACING = traced()

CHILD_TRACED = attrs.evolve(
    CHILD,
    name="tests.otel.teams_traced:CHILD_TRACED",
    shell=lambda: attrs.evolve(CHILD.shell(), observer=TRACING.observer),
)


def _kept(boss: Boss, outcome: ChildOutcome) -> Boss:
    return attrs.evolve(boss, outcome=outcome)


PARENT_TRACED = Durable(
    name="tests.otel.teams_traced:PARENT_TRACED",
    machine=DELEGATOR_MACHINE.extend(
        handlers={
            P.ASK: delegate(
                program=CHILD_TRACED.name,
                child=CHILD_MACHINE,
                start=lambda boss: boss.n,
                ends={C.DONE: PE.ANSWERED, C.REFUSED: PE.DECLINED},
                failed=PE.BROKE,
                cancelled=PE.STOPPED,
                merge=_kept,
            )
        }
    ),
    shell=lambda: Shell(clock=StepClock(start=1000.0), observer=TRACING.observer),
)


def in_process_shell() -> Shell:
    """The parent's shell with no store: its child runs inline, in the child-run effect's performer."""
    return Shell(in_process_children([CHILD_TRACED]), StepClock(start=1000.0), TRACING.observer)
