"""The plan-and-execute agent's run properties: a forbidden tool never runs; it finishes within its bound.

:data:`PLAN_EXECUTE_PROPERTIES` (:mod:`verification.kit.run_properties`), checked over every
generated or explored run of :data:`~agentsm_fn.agents.plan_execute.PLAN_EXECUTE_MACHINE`:

* absence: no ``RunTools`` call of a tool the run's policy does not permit (forbidden, or
  outside ``allowed_tools``), in the whole run;
* bounded existence: at most the verifier's bound of transitions for
  :func:`plan_execute_budget` of the start memory (EXECUTE visits: ``max_iterations + 1``).
"""

from __future__ import annotations

from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE, PlanExecuteMemory, RunTools, State
from verification.kit.invariants import Transition
from verification.kit.letters import Letter
from verification.kit.run_properties import RunProperty, at_most, never
from verification.verify import step_bound

__all__ = ["FORBIDDEN_NEVER_RUNS", "PLAN_EXECUTE_PROPERTIES", "WITHIN_BOUND", "plan_execute_budget"]


def plan_execute_budget(memory: PlanExecuteMemory) -> int:
    """Visits to EXECUTE (the budgeted state) a run may make: one per iteration, and the last.

    Example:
        >>> plan_execute_budget(PlanExecuteMemory(input="x", max_iterations=3))
        4
    """
    return memory.max_iterations + 1


def _forbidden_runs(t: Transition[State, PlanExecuteMemory]) -> tuple[str, ...]:
    policy = t.before.config.policy
    return tuple(
        c.name for e in t.effects if isinstance(e, RunTools) for c in e.calls if not policy.permits(c.name)
    )


def _transitions_allowed(memory: PlanExecuteMemory) -> int:
    bound = step_bound(PLAN_EXECUTE_MACHINE)
    assert bound is not None  # EXECUTE is budgeted and every cycle passes through it
    return bound.max_transitions(plan_execute_budget(memory))


FORBIDDEN_NEVER_RUNS: RunProperty[State, PlanExecuteMemory] = never(
    Letter("a tool the policy does not permit runs", _forbidden_runs), name="a forbidden tool never runs"
)
"""Absence: no tool call the policy forbids is ever run."""

WITHIN_BOUND: RunProperty[State, PlanExecuteMemory] = at_most(
    _transitions_allowed,
    Letter("a transition", lambda t: (None,)),
    name="plan-and-execute finishes within its step bound",
)
"""Bounded existence: at most the verifier's bound of transitions for the start memory's budget."""

PLAN_EXECUTE_PROPERTIES: tuple[RunProperty[State, PlanExecuteMemory], ...] = (
    FORBIDDEN_NEVER_RUNS,
    WITHIN_BOUND,
)
"""The plan-and-execute agent's run properties."""
