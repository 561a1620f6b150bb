"""Observers: what a run reports, as it goes, to tracing and live views (protocols only; pure).

Give the shell an observer (``Shell(observer=...)``) and ``run``, ``arun`` and
``resume_run`` call it at a run's lifecycle points; handlers never see it (tracing
lives in lifecycle hooks, never inside the pure handlers)::

    RunObserver.run_started(RunStart)  -> RunWatch, or None to leave this run alone
      RunWatch.transition(step, state, event, target, at)       each transition
      RunWatch.memory_after(step, memory)            (optional) the memory after it
      RunWatch.effect_requested(step, state, effect, summary, at)  (optional) each request row
      RunWatch.effect_started(effect, within) -> EffectWatch    before a performer runs
        EffectWatch.effect_ended(outcome, seconds)              its outcome (or SUSPEND)
        EffectWatch.effect_raised(error, seconds)               the performer raised
        EffectWatch.streamed(delta)          (optional method)   a streaming provider's delta
      RunWatch.run_ended(RunEnd)                                the run stopped

``within`` is the effect a part belongs to (a tool call of a parallel batch); None
for the effects the machine asked for. ``effect_requested`` (optional: looked up on a watch
that has it) reports each effect request the trace records, in trace order, with the
effect's class name and summary as the trace keeps them, before it is performed (or
found to have no performer). ``memory_after`` (optional, likewise) is called right
after each ``transition`` with the same step and the memory the run holds from then on
(the memory a handler returned with its event), in order, for ``run``, ``arun``, a resumed
run and a durable one alike; a watch that wants to show the run's data as it changes asks
for it by having the method. The fold passes the memory only to a run whose watch has it,
so a run without one costs what it always did. ``streamed`` is looked up on an effect watch that
has it: a streaming provider reports each delta it decodes (a provider ``StreamEvent``:
text, a tool call's start or argument fragment) with ``agentsm_fn.shell.report_delta``
to the effect it is performing. Without an observer a run pays nothing. The
protocols live in the core: they are types over the core's values (snapshots, effects,
failure reasons) and do no IO; the shell does the calling
(:mod:`agentsm_fn.shell.observing`), and an observer that raises never breaks a run.
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Protocol

import attrs

from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import Reason
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot

__all__ = ["EffectWatch", "RunEnd", "RunObserver", "RunStart", "RunWatch"]


class RunStart(NamedTuple):
    """A run about to start: its machine, where it starts, and whether it continues one.

    ``resumed`` is True for a run that continues a stored one (``resume_run``, or
    ``run`` on a snapshot that has already taken steps); ``snapshot`` is the snapshot
    it starts from (None for a fresh run from a memory). A named tuple, not an attrs
    class: one is made per observed run, and an observer that declines it should cost
    next to nothing.

    Example:
        >>> import enum
        >>> from agentsm_fn.core.machine import define_machine
        >>> class S(enum.Enum):
        ...     A = 1
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> m = define_machine(name="m", states=S, events=E, initial=S.A, terminals={S.A},
        ...                    table={}, handlers={})
        >>> RunStart(machine=m, state=S.A, memory=0, steps=0, resumed=False).machine.name
        'm'
    """

    machine: Machine[enum.Enum, enum.Enum, object]
    state: enum.Enum
    memory: object
    steps: int
    resumed: bool
    snapshot: Snapshot[enum.Enum, object] | None = None


@attrs.frozen(kw_only=True)
class RunEnd:
    """How a run stopped: its last snapshot (the one ``run`` returns) and, if it failed, why.

    ``snapshot.status`` tells a finished run from a suspended one (AWAITING); a failed
    run's ``snapshot`` is the failure's last good snapshot.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     A = 1
        >>> RunEnd(snapshot=Snapshot(state=S.A, memory=0), reason=None).failed
        False
    """

    snapshot: Snapshot[enum.Enum, object]
    reason: Reason | None

    @property
    def failed(self) -> bool:
        """True when the run ended with a failure value."""
        return self.reason is not None


class EffectWatch(Protocol):
    """Watches one effect being performed."""

    def effect_ended(self, outcome: object, seconds: float) -> None:
        """The performer returned ``outcome`` (``SUSPEND`` when it paused the run) after ``seconds``."""
        ...

    def effect_raised(self, error: BaseException, seconds: float) -> None:
        """The performer raised ``error`` after ``seconds``."""
        ...


class RunWatch(Protocol):
    """Watches one run (one per run, so concurrent runs stay apart)."""

    def transition(self, step: int, state: enum.Enum, event: enum.Enum, target: enum.Enum, at: float) -> None:
        """The run moved from ``state`` to ``target`` on ``event`` (``at``: the shell's clock reading)."""
        ...

    def effect_started(self, effect: Effect[object], within: EffectWatch | None) -> EffectWatch:
        """A performer is about to perform ``effect`` (a part of ``within``, if given)."""
        ...

    def run_ended(self, end: RunEnd) -> None:
        """The run stopped: finished, suspended, or failed."""
        ...


class RunObserver(Protocol):
    """Told about every run of a shell it is given to."""

    def run_started(self, start: RunStart) -> RunWatch | None:
        """A watch for this run, or None to leave it alone (it then runs as if unobserved)."""
        ...
