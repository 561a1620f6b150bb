"""The shell: the only layer that performs IO (effects, clock) for the pure core."""

from agentsm_fn.shell.clock import Clock, StepClock, system_clock
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.run import Shell, arun, resume_run, run

__all__ = [
    "AsyncPerformer",
    "Clock",
    "Performer",
    "Performers",
    "Shell",
    "StepClock",
    "arun",
    "resume_run",
    "run",
    "system_clock",
]
