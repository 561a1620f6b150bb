"""The shell: the only layer that performs IO (effects, clock) for the pure core."""

from agentsm_fn.core.observe import EffectWatch, RunEnd, RunObserver, RunStart, RunWatch
from agentsm_fn.shell.clock import Clock, StepClock, system_clock
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.keys import EffectKey, effect_key, keyed
from agentsm_fn.shell.observing import aperform_part, perform_part, report_delta
from agentsm_fn.shell.performers import AsyncPerformer, Performer, Performers
from agentsm_fn.shell.run import Shell, aresume_run, arun, resume_run, run
from agentsm_fn.shell.streaming import astream, stream

__all__ = [
    "AsyncPerformer",
    "Clock",
    "EffectKey",
    "EffectWatch",
    "Performer",
    "Performers",
    "RunEnd",
    "RunObserver",
    "RunStart",
    "RunWatch",
    "Shell",
    "StepClock",
    "aperform_part",
    "aresume_run",
    "arun",
    "astream",
    "effect_key",
    "keyed",
    "perform_part",
    "redact_credentials",
    "report_delta",
    "resume_run",
    "run",
    "stream",
    "system_clock",
]
