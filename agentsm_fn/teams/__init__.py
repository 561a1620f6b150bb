"""Teams of programs: a state that runs another durable program as a child run, or many at once.

A child run is an effect of the parent whose outcome is the child's result (docs: DESIGN.md,
"Beyond one run"). :func:`delegate` makes the handler of a state that runs one child
(:class:`ChildRun`, outcome a :data:`ChildOutcome`); :func:`fan_out` the handler of a state
that runs one child per item, at most ``limit`` at once, and resumes once with every outcome
in order (:class:`Children`, outcome :class:`Gathered`). Both handlers carry what the
verifier reads: the child machine and how each way it can end maps to a parent event.

This package is pure (values and handlers); the shell and the durable stores perform the
effects.
"""

from agentsm_fn.teams.delegating import Delegating, delegate, outcome_event
from agentsm_fn.teams.fanning import FanningOut, fan_out
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
    "delegate",
    "fan_out",
    "outcome_event",
]
