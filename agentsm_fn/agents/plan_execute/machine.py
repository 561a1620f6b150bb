"""``PLAN_EXECUTE_MACHINE``: the seed's plan-and-execute FSM as one frozen, validated constant.

EXECUTE is budgeted (every visit consumes one of ``memory.max_iterations``), and so is
CORRECTING (a typed result's retries, each leading back to EXECUTE). The safety cap bounds
one run's transitions by the same budget: 4 before the loop, 4 per iteration, 1 to a terminal.
Each effectful state declares the event it emits when its effect fails.
"""

from __future__ import annotations

from typing import Final

from agentsm_fn.agents.plan_execute.correcting import correct_output
from agentsm_fn.agents.plan_execute.front import (
    decide_enter,
    decide_receive,
    intake_enter,
    intake_receive,
    plan_enter,
    plan_receive,
)
from agentsm_fn.agents.plan_execute.graph import TABLE, Event, State
from agentsm_fn.agents.plan_execute.loop import (
    execute_enter,
    execute_receive,
    loop_check_enter,
    loop_check_receive,
    observe_enter,
    observe_receive,
)
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.core.handlers import effectful, pure
from agentsm_fn.core.machine import Machine, define_machine

__all__ = ["PLAN_EXECUTE_MACHINE", "narrate_plan_execute", "transitions_cap"]


def transitions_cap(mem: PlanExecuteMemory) -> int:
    """The most transitions a run from ``mem`` can take (the engine's safety cap).

    4 before the loop (DECIDE may go through CORRECTING), 4 per iteration (EXECUTE, OBSERVE,
    LOOP_CHECK, CORRECTING back to EXECUTE), 1 to a terminal.

    Example:
        >>> transitions_cap(PlanExecuteMemory(input="x", max_iterations=3))
        17
    """
    return 4 + 4 * mem.max_iterations + 1


def narrate_plan_execute(state: State, event: Event, mem: PlanExecuteMemory) -> str:
    """The trace's data column: the reason recorded in the FSM history.

    Example:
        >>> narrate_plan_execute(State.INTAKE, Event.NORMALIZED, PlanExecuteMemory(input="x"))
        ''
    """
    if mem.history and mem.history[-1].source is state and mem.history[-1].event is event:
        return mem.history[-1].reason[:200]
    return ""


PLAN_EXECUTE_MACHINE: Final[Machine[State, Event, PlanExecuteMemory]] = define_machine(
    name="plan_execute",
    states=State,
    events=Event,
    initial=State.INTAKE,
    terminals={State.FINALIZE, State.HALT},
    table=TABLE,
    handlers={
        State.INTAKE: effectful(intake_enter, intake_receive, failure_event=Event.NORMALIZED),
        State.PLAN: effectful(plan_enter, plan_receive, failure_event=Event.INVALID_PLAN),
        State.DECIDE: effectful(decide_enter, decide_receive, failure_event=Event.INVALID),
        State.EXECUTE: effectful(execute_enter, execute_receive, failure_event=Event.ERROR),
        State.OBSERVE: effectful(observe_enter, observe_receive, failure_event=Event.OBSERVED),
        State.LOOP_CHECK: effectful(loop_check_enter, loop_check_receive, failure_event=Event.VIOLATION),
        State.CORRECTING: pure(correct_output),
    },
    budgeted={State.EXECUTE, State.CORRECTING},
    safety_cap=transitions_cap,
    narrate=narrate_plan_execute,
)
"""The plan-and-execute agent: states, events, table, handlers, budget. Run it with the shell.

Example:
    >>> PLAN_EXECUTE_MACHINE.table[(State.LOOP_CHECK, Event.CONTINUE)], sorted(s.name for s in
    ...     PLAN_EXECUTE_MACHINE.budgeted)
    (<State.EXECUTE: 3>, ['CORRECTING', 'EXECUTE'])
"""
