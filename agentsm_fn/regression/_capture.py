"""Folding a run's inputs once more to write its recording: each request, each row, the end.

The fold is the engine's own ``step`` and ``resume`` over the run's clock readings and
outcomes (no IO), keeping what the journal does not: every effect the run asked for (in the
codec's JSON form), the state and step that asked, and the rows it took.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import TypeAlias, TypeVar

import attrs
import msgspec
from returns.result import Failure, Result, Success

from agentsm_fn.core.effects import describe_effect
from agentsm_fn.core.engine import resume, step
from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.fingerprint import machine_fingerprint
from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable import CodecFailure, Diverged, content_digest
from agentsm_fn.regression._file import one_line
from agentsm_fn.regression.json_form import to_json_form
from agentsm_fn.regression.values import JsonText, RecordedEffect, RecordedEnd, Recording

__all__: list[str] = []

_ENCODE = msgspec.json.Encoder().encode

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen
class Answer:
    """One outcome of the run's journal: the outcome, its clock reading, its stored digest (or None)."""

    outcome: object
    at: float
    digest: bytes | None = None


Input: TypeAlias = "float | Answer"
"""A clock reading before a handler ran, or an effect's outcome."""


def row_text(state: str, event: str, target: str) -> str:
    """One row as a recording writes it.

    Example:
        >>> row_text("IDLE", "START", "THINKING")
        'IDLE -START-> THINKING'
    """
    return f"{state} -{event}-> {target}"


def rows_of(snapshot: Snapshot[StateT, MemoryT]) -> list[str]:
    """The rows a snapshot's trace took, in order (its effect requests left out).

    Read from the trace's raw rows (``(step, state, event, target, data, at)``; a request's
    target is None), each enum member's name looked up once: a long run has thousands.
    """
    names: dict[object, str] = {}

    def name(value: object) -> str:
        found = names.get(value)
        if found is None:
            found = names[value] = value.name if isinstance(value, enum.Enum) else str(value)
        return found

    return [
        f"{name(state)} -{name(event)}-> {name(target)}"
        for _, state, event, target, _, _ in snapshot.trace.rows
        if target is not None and target != ""
    ]


def _form(value: object, where: str) -> JsonText:
    found = to_json_form(value)
    if isinstance(found, Failure):
        raise _Unwritable(found.failure().within("", where))
    return one_line(_ENCODE(found.unwrap()))


class _Unwritable(Exception):
    def __init__(self, failure: CodecFailure) -> None:
        super().__init__(failure.describe())
        self.failure = failure


def capture(
    machine: Machine[StateT, EventT, MemoryT],
    name: str,
    start: Snapshot[StateT, MemoryT],
    inputs: Iterable[Input],
    run_id: str = "",
    requests: bool = True,
) -> Result[Recording, CodecFailure | Diverged]:
    """The recording of the run ``inputs`` make of ``machine`` from ``start``; it must fit the machine."""
    try:
        return _capture(machine, name, start, inputs, run_id, requests)
    except _Unwritable as unwritable:
        return Failure(unwritable.failure)


def _capture(
    machine: Machine[StateT, EventT, MemoryT],
    name: str,
    start: Snapshot[StateT, MemoryT],
    inputs: Iterable[Input],
    run_id: str,
    requests: bool,
) -> Result[Recording, CodecFailure | Diverged]:
    snap, failed = start, None
    effects: list[RecordedEffect] = []
    ticks: list[float] = []

    def diverged(detail: str) -> Failure[Diverged]:
        return Failure(Diverged(run_id=run_id, seq=len(effects), step=snap.steps + 1, detail=detail))

    for item in inputs:
        result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]
        if isinstance(item, Answer):
            pending = snap.pending
            if snap.status is not Status.AWAITING or pending is None:
                return diverged("the journal has an outcome where the machine asks for nothing")
            digest = content_digest(pending)
            if digest is None or (item.digest is not None and digest != item.digest):
                return diverged(f"the machine asks for {describe_effect(pending)}, not the journal's effect")
            seq = len(effects)
            effects.append(
                RecordedEffect(
                    seq=seq,
                    step=snap.steps + 1,
                    state=snap.state.name,
                    summary=describe_effect(pending),
                    digest=digest.hex(),
                    ticks=tuple(ticks),
                    request=_form(pending, f"effects[{seq}].request") if requests else None,
                    outcome=_form(item.outcome, f"effects[{seq}].outcome"),
                    at=item.at,
                )
            )
            ticks = []
            result = resume(machine, snap, item.outcome, item.at)
        else:
            if snap.status is not Status.READY:
                return diverged(f"the journal runs a handler where the machine is {snap.status.value}")
            ticks.append(item)
            result = step(machine, snap, item)
        snap, failed = (result.unwrap(), None) if isinstance(result, Success) else _failed(result.failure())
    if snap.status is Status.AWAITING and snap.pending is not None and failed is None:
        pending, seq = snap.pending, len(effects)
        digest = content_digest(pending) or b""
        effects.append(
            RecordedEffect(
                seq=seq,
                step=snap.steps + 1,
                state=snap.state.name,
                summary=describe_effect(pending),
                digest=digest.hex(),
                ticks=tuple(ticks),
                request=_form(pending, f"effects[{seq}].request") if requests else None,
            )
        )
        ticks = []
    return Success(
        Recording(
            machine=name,
            fingerprint=machine_fingerprint(machine),
            run_id=run_id,
            start_state=start.state.name,
            start_steps=start.steps,
            memory=_form(start.memory, "start.memory"),
            effects=tuple(effects),
            tail=tuple(ticks),
            rows=tuple(rows_of(snap)),
            end=end_of(snap, failed, _form(snap.memory, "end.memory")),
        )
    )


def _failed(
    failure: RunFailed[StateT, MemoryT],
) -> tuple[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]]:
    return failure.snapshot, failure


def end_of(
    snap: Snapshot[StateT, MemoryT], failed: RunFailed[StateT, MemoryT] | None, memory: JsonText = "null"
) -> RecordedEnd:
    """How a run that stopped at ``snap`` (failing with ``failed``, if it did) ended."""
    if failed is not None:
        return RecordedEnd(
            status="failed",
            state=snap.state.name,
            steps=snap.steps,
            reason=failed.reason.describe(),
            memory=memory,
        )
    status = {Status.FINISHED: "finished", Status.AWAITING: "awaiting"}.get(snap.status, "ready")
    return RecordedEnd(status=status, state=snap.state.name, steps=snap.steps, memory=memory)
