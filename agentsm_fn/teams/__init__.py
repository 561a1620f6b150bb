"""Teams of programs: a state that runs another durable program as a child run, or many at once.

A child run is an effect of the parent whose outcome is the child's result (docs: DESIGN.md,
"Beyond one run"). :func:`delegate` makes the handler of a state that runs one child
(:class:`ChildRun`, outcome a :data:`ChildOutcome`); :func:`fan_out` the handler of a state
that runs one child per item, at most ``limit`` at once, and resumes once with every outcome
in order (:class:`Children`, outcome :class:`Gathered`). Both handlers carry what the
verifier reads: the child machine and how each way it can end maps to a parent event.
A :class:`Team` names agents that hand a conversation to each other (:class:`Handoff`), which
the verifier proves, taken together, always has a way to finish.

This package is pure (values and handlers); the shell and the durable stores perform the
effects.
"""

from agentsm_fn.teams.delegating import Delegating, delegate, outcome_event
from agentsm_fn.teams.fanning import FanningOut, fan_out
from agentsm_fn.teams.team import AnyMachine, Handoff, Team, keep_everything
from agentsm_fn.teams.turns import Handing, StartTurn
from agentsm_fn.teams.values import (
    ChildCancelled,
    ChildFailed,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Gathered,
    GatherPolicy,
)

__all__ = [
    "AnyMachine",
    "ChildCancelled",
    "ChildFailed",
    "ChildFinished",
    "ChildOutcome",
    "ChildRun",
    "Children",
    "Delegating",
    "FanningOut",
    "GatherPolicy",
    "Gathered",
    "Handing",
    "Handoff",
    "StartTurn",
    "Team",
    "delegate",
    "fan_out",
    "keep_everything",
    "outcome_event",
]
