"""A recording as a regression case: replay its outcomes against the current code, performing nothing.

:func:`replay_recording` decodes the recording's start memory and outcomes, folds them through
the machine as it is now with the engine's exact :func:`~agentsm_fn.core.replay` (each effect
the code asks for checked against the recorded digest), then compares the rows it took and
how it ended. The first step that differs is a
:class:`~agentsm_fn.regression.errors.Divergence` with the old and the new request (or row, or
end) side by side; a recording the code replays exactly is :class:`Replayed`. Free (no model,
no tool, no clock) and deterministic.
"""

from __future__ import annotations

import enum
from typing import Any, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import Durable
from agentsm_fn.regression._capture import end_of, rows_of
from agentsm_fn.regression._compare import Comparer
from agentsm_fn.regression._decode import decode_values
from agentsm_fn.regression._fold import fold_recording
from agentsm_fn.regression.errors import RegressionError
from agentsm_fn.regression.values import Recording

__all__ = ["Replayed", "replay_recording"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class Replayed:
    """A recording the current code replays exactly: its steps, its effects, whether the fingerprint changed.

    Example:
        >>> Replayed(source="a.recording.json", steps=12, effects=5).describe()
        'a.recording.json: replays as recorded (12 steps, 5 effects)'
    """

    source: str
    steps: int
    effects: int
    machine_changed: bool = False

    def describe(self) -> str:
        """One line for reports."""
        changed = "; the machine's fingerprint changed, its behaviour did not" if self.machine_changed else ""
        return f"{self.source}: replays as recorded ({self.steps} steps, {self.effects} effects){changed}"


def replay_recording(
    recording: Recording,
    target: Durable[StateT, EventT, MemoryT] | Machine[StateT, EventT, MemoryT],
    source: str = "<recording>",
) -> Result[Replayed, RegressionError]:
    """Replay ``recording`` against ``target`` as it is now; the first step that differs, if any.

    The classes the recording's values name must be loaded (import the machine's module first;
    the codec imports nothing). ``source`` names the recording in reports.

    Example:
        >>> import enum
        >>> from agentsm_fn.core import begin, define_machine, emit
        >>> from agentsm_fn.regression import record_run
        >>> from agentsm_fn.shell import Shell, run
        >>> class S(enum.Enum):
        ...     A = 1
        ...     Z = 2
        >>> class E(enum.Enum):
        ...     GO = 1
        >>> def machine(add: int):
        ...     return define_machine(states=S, events=E, initial=S.A, terminals={S.Z},
        ...                           table={(S.A, E.GO): S.Z}, handlers={S.A: lambda n: emit(E.GO, n + add)})
        >>> start = begin(machine(1), 1)
        >>> rec = record_run(machine(1), start, run(machine(1), start, Shell()).unwrap(), "app:M").unwrap()
        >>> replay_recording(rec, machine(1), "one.recording.json").unwrap().describe()
        'one.recording.json: replays as recorded (1 steps, 0 effects)'
        >>> print(replay_recording(rec, machine(2), "one.recording.json").failure().describe())
        one.recording.json: diverges at step 1 in state Z: ends otherwise: the final memory differs
          recorded: 2
          now:      3
    """
    machine: Machine[Any, Any, Any] = target.machine if isinstance(target, Durable) else target
    changed = machine_fingerprint(machine) != recording.fingerprint
    compare = Comparer(recording=recording, source=source, machine_changed=changed)
    state = machine.states.__members__.get(recording.start_state)
    if state is None:
        return Failure(compare.missing_start())
    values = decode_values(recording, source)
    if isinstance(values, Failure):
        return values
    memory, outcomes, end_memory = values.unwrap()
    status = Status.FINISHED if state in machine.terminals else Status.READY
    start: Snapshot[Any, Any] = Snapshot(
        state=state, memory=memory, status=status, steps=recording.start_steps
    )
    snap, failed, misfit = fold_recording(machine, start, recording, outcomes)
    row = compare.rows(rows_of(snap), complete=misfit is None)
    if row is not None:
        return Failure(row)
    if misfit is not None:
        return Failure(compare.misfit(snap, misfit, failed))
    ended = end_of(snap, failed)
    different = compare.end(snap, ended, end_memory)
    if different is not None:
        return Failure(different)
    return Success(
        Replayed(
            source=source,
            steps=snap.steps - recording.start_steps,
            effects=len(recording.effects),
            machine_changed=changed,
        )
    )
