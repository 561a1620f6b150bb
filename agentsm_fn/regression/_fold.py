"""Folding a recording's journal through the current machine with the engine's fast fold (``drive``).

The recording answers the fold as a durable run's journal does on resume: the clock returns the
recorded readings in order, and each effect the code asks for is answered with the recorded
outcome once its SHA-256 digest is the recorded one. The first input that does not fit (an
effect asked where the recording ran a handler, another effect, a handler run where the
recording has an outcome) stops the fold and is noted as a :class:`Misfit`; the snapshot the
fold stopped at holds the new request. A run that failed mid-journal and was retried goes on
from its failure, as :func:`~agentsm_fn.core.replay` does.
"""

from __future__ import annotations

import enum
from collections.abc import Generator
from typing import Any

import attrs
from returns.result import Result, Success

from agentsm_fn.core.driver import SUSPEND, drive
from agentsm_fn.core.effects import Effect
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable import content_digest
from agentsm_fn.regression.values import Recording

__all__: list[str] = []

AnySnapshot = Snapshot[Any, Any]


class MisfitKind(enum.Enum):
    """How the code's next input differs from the recording's."""

    EFFECT_AT_TICK = "an effect where the recording runs a handler"
    OTHER_EFFECT = "another effect"
    HANDLER_AT_OUTCOME = "a handler run where the recording has an outcome"
    LEFT_OVER = "the run stops before the recording does"
    FAILS = "the run fails where the recording goes on"


@attrs.frozen
class Misfit:
    """Where the fold stopped fitting: its kind, and the recorded effect involved (-1: none).

    ``tick`` says the recording's next input there is a clock reading (a handler run), not an outcome.
    """

    kind: MisfitKind
    seq: int
    tick: bool = False


class _Stop(Exception):
    """Raised by the script's clock to stop the fold (the fold turns it into a clock failure)."""


class _Script:
    """The recording's inputs in journal order: ``(clock reading, digest or None, outcome, effect seq)``."""

    __slots__ = ("ended", "entries", "misfit", "pending_at", "pos")

    def __init__(self, entries: list[tuple[float, bytes | None, object, int]]) -> None:
        self.entries = entries
        self.pos = 0
        self.pending_at: float | None = None
        self.misfit: Misfit | None = None
        self.ended = False

    def clock(self) -> float:
        at = self.pending_at
        if at is not None:  # the reading after an outcome
            self.pending_at = None
            return at
        pos = self.pos
        if pos >= len(self.entries):  # the recording stops here (a run stopped while ready)
            self.ended = True
            raise _Stop
        at, digest, _, seq = self.entries[pos]
        if digest is not None:
            self.misfit = Misfit(MisfitKind.HANDLER_AT_OUTCOME, seq)
            raise _Stop
        self.pos = pos + 1
        return at

    def perform(self, effect: Effect[object]) -> object:
        pos = self.pos
        if pos >= len(self.entries):  # the recording waits for this effect (its end says which)
            return SUSPEND
        at, digest, outcome, seq = self.entries[pos]
        if digest is None:
            self.misfit = Misfit(MisfitKind.EFFECT_AT_TICK, seq)
            return SUSPEND
        if content_digest(effect) != digest:
            self.misfit = Misfit(MisfitKind.OTHER_EFFECT, seq)
            return SUSPEND
        self.pos = pos + 1
        self.pending_at = at
        return outcome


def _entries(
    recording: Recording, outcomes: tuple[object, ...]
) -> list[tuple[float, bytes | None, object, int]]:
    entries: list[tuple[float, bytes | None, object, int]] = []
    answers = iter(outcomes)
    for effect in recording.effects:
        entries.extend((at, None, None, effect.seq) for at in effect.ticks)
        if effect.answered:
            entries.append((effect.at, bytes.fromhex(effect.digest), next(answers), effect.seq))
    entries.extend((at, None, None, -1) for at in recording.tail)
    return entries


def _finish(
    fold: Generator[Effect[object], object, Result[AnySnapshot, RunFailed[Any, Any]]], script: _Script
) -> Result[AnySnapshot, RunFailed[Any, Any]]:
    try:
        effect = next(fold)  # only a fold that starts awaiting yields (its pending effect)
        while True:
            effect = fold.send(script.perform(effect))
    except StopIteration as stop:
        done: Result[AnySnapshot, RunFailed[Any, Any]] = stop.value
        return done


def fold_recording(
    machine: Machine[Any, Any, Any], start: AnySnapshot, recording: Recording, outcomes: tuple[object, ...]
) -> tuple[AnySnapshot, RunFailed[Any, Any] | None, Misfit | None]:
    """Where the code stops on the recording's inputs: the snapshot, and its failure and misfit, if any."""
    script = _Script(_entries(recording, outcomes))
    snap, failed = start, None
    while True:
        before, earlier = script.pos, failed
        result = _finish(drive(machine, snap, script.clock, script.perform), script)
        if isinstance(result, Success):
            snap, failed = result.unwrap(), None
            if script.misfit is not None and earlier is not None and script.pos == before:
                return earlier.snapshot, earlier, Misfit(MisfitKind.FAILS, script.misfit.seq)
            break
        failure: RunFailed[Any, Any] = result.failure()
        snap, failed = failure.snapshot, failure
        if script.misfit is not None or script.ended:
            if earlier is not None and script.pos == before:  # the retry does not fit: the failure is new
                return (
                    earlier.snapshot,
                    earlier,
                    Misfit(MisfitKind.FAILS, script.misfit.seq if script.misfit else -1),
                )
            failed = None  # the script stopped the fold: no failure of the run's own
            break
        if script.pos >= len(script.entries) or script.pos == before:
            break
        # The run failed here and was retried from its failure (as ``run`` allows): go on from there.
    if script.misfit is None and script.pos < len(script.entries):
        _, digest, _, seq = script.entries[script.pos]
        script.misfit = Misfit(MisfitKind.LEFT_OVER, seq, tick=digest is None)
    return snap, failed, script.misfit
