"""A durable run's events: derived from its journal (:func:`stored_events`), and live (``Durable.astream``).

A stored run needs no event log: :func:`stored_events` replays its journal (nothing is
performed) and reads the history off the replayed trace and journal, at the positions a
live stream gave the same events (:mod:`agentsm_fn.stream.events`), then says where the
run stands. :func:`astream_durable` streams a new run as it runs, or a stored one: its
history after ``after`` first, then (if it can go on) its continuation in this process.
The continuation replays the journal again, from its latest checkpoint; what that replay
reports is history the consumer has, and is not given twice. Leaving the loop early
cancels the run's task: the run stays stored, resumable as after a crash.
"""

from __future__ import annotations

import enum
from collections.abc import AsyncGenerator
from typing import TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError, Stopped
from agentsm_fn.durable.running.program import DurableProgram, StoredRun
from agentsm_fn.durable.running.replay import replayed
from agentsm_fn.durable.running.run_ids import refused_run_id
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore
from agentsm_fn.shell._stream_buffer import EventBuffer
from agentsm_fn.shell._stream_watch import StreamWatch
from agentsm_fn.shell.credentials import credential_redactor, redact_credentials
from agentsm_fn.shell.stream_history import history_of, standing_events
from agentsm_fn.shell.streaming import new_run_id, stopped_at_effect, streamed_shell
from agentsm_fn.stream.events import Failed, RunEvent, RunStarted, history_position

__all__ = ["astream_durable", "stored_events"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

DurableResult = Result[StoredRun[StateT, MemoryT], DurableError]


def _started(
    durable: DurableProgram[StateT, EventT, MemoryT], run_id: str, state: str, steps: int
) -> RunStarted:
    return RunStarted(
        run_id=run_id, machine=durable.name, fingerprint=durable.fingerprint, state=state, steps=steps
    )


def stored_events(
    store: RunStore, durable: DurableProgram[StateT, EventT, MemoryT], run_id: str
) -> Result[tuple[RunEvent, ...], DurableError]:
    """The run's history, by replay of its journal, then where it stands (as a live stream gives them).

    A finished run ends with ``Finished``, a waiting one with ``EffectCompleted``
    (``SUSPENDED``) and ``AwaitingOutcome``, a failed one with ``Failed``; a run that is
    running (here or in another process) or ready to go on ends with its last history
    event. ``Failed.reason`` is the failure's class name when the replay reaches the
    failure again (a handler's), else ``EffectFailed`` for a run stopped at an effect and
    ``DurableError`` for one its store or codec stopped. Durations are the journal's
    clock readings. Nothing is performed, nothing written.
    """
    return _stored(store, durable, run_id).map(lambda found: found[1])


def _stored(
    store: RunStore, durable: DurableProgram[StateT, EventT, MemoryT], run_id: str
) -> Result[tuple[RunRecord, tuple[RunEvent, ...]], DurableError]:
    """:func:`stored_events`, with the run's record they were derived from."""
    found = store.get(run_id)
    if isinstance(found, Failure):
        return found
    record = found.unwrap()
    start = store.start(run_id)
    if isinstance(start, Failure):
        return start
    state_name, steps = start.unwrap()
    replay = replayed(store, durable.machine, run_id)
    if isinstance(replay, Failure):
        return replay
    snapshot, failed = replay.unwrap()
    started = _started(durable, run_id, state_name or durable.machine.initial.name, steps)
    history = history_of(started, snapshot, credential_redactor())
    return Success((record, history + _stored_standing(record, len(history), snapshot, failed)))


def _stored_standing(
    record: RunRecord,
    position: int,
    snapshot: Snapshot[StateT, MemoryT],
    failed: RunFailed[StateT, MemoryT] | None,
) -> tuple[RunEvent, ...]:
    run_id = record.run_id
    if record.status is RunStatus.FAILED:
        reason = (
            type(failed.reason).__name__
            if failed is not None
            else "EffectFailed"
            if snapshot.awaiting
            else "DurableError"
        )
        return (
            Failed(
                run_id=run_id,
                position=position,
                state=record.state,
                steps=record.steps,
                reason=reason,
                detail=redact_credentials(record.reason),
            ),
        )
    if record.status in (RunStatus.FINISHED, RunStatus.WAITING):
        stored = StoredRun(run_id=run_id, snapshot=snapshot)
        return standing_events(run_id, position, Success(snapshot), stored, redact_credentials)
    return ()


def _standing(watch: StreamWatch, result: DurableResult[StateT, MemoryT]) -> tuple[RunEvent, ...]:
    """Where a durable run stands once ``Durable.astart``/``aresume`` returned ``result``."""
    watch.settle(
        isinstance(result, Failure)
        and isinstance(result.failure(), Stopped)
        and stopped_at_effect(Failure(result.failure().failed))
    )
    run_id, position = watch.run_id, watch.next
    if isinstance(result, Success):
        done = Success(result.unwrap().snapshot)
        return standing_events(run_id, position, done, result, redact_credentials, watch.held)
    error = result.failure()
    if isinstance(error, Stopped):
        return standing_events(run_id, position, Failure(error.failed), result, redact_credentials)
    return (
        Failed(
            run_id=run_id,
            position=position,
            state=watch.state,
            steps=watch.steps,
            reason=type(error).__name__,
            detail=redact_credentials(error.describe()),
            result=result,
        ),
    )


def _streamed(
    durable: DurableProgram[StateT, EventT, MemoryT], watch: StreamWatch
) -> DurableProgram[StateT, EventT, MemoryT]:
    make = durable.shell
    return attrs.evolve(durable, shell=lambda: streamed_shell(make(), watch))


def _new_run(
    durable: DurableProgram[StateT, EventT, MemoryT],
    store: RunStore,
    memory: MemoryT | None,
    run_id: str,
    buffer: int,
) -> AsyncGenerator[RunEvent, None]:
    events = EventBuffer(buffer)
    events.put(_started(durable, run_id, durable.machine.initial.name, 0))
    watch = StreamWatch(run_id, events, position=1, emitted=0)

    async def run() -> tuple[RunEvent, ...]:
        started = await _streamed(durable, watch).astart(store, memory, run_id)  # type: ignore[arg-type]  # None only for a machine whose memory is None
        return _standing(watch, started)

    return events.events(run)


def _resumes_at(
    store: RunStore, durable: DurableProgram[StateT, EventT, MemoryT], record: RunRecord, started: RunStarted
) -> int:
    """The position of the first history event a resume reports (from the checkpoint it loads)."""
    point = store.checkpoint(record.run_id) if record.fingerprint == durable.fingerprint else None
    checkpoint = None if point is None or isinstance(point, Failure) else point.unwrap()
    if checkpoint is None:
        return 1
    # RunStarted, the transitions since the start, effects 0..seq-1 requested and answered, seq requested
    return 2 + (checkpoint.steps - started.steps) + 2 * checkpoint.seq


async def _given(*events: RunEvent) -> AsyncGenerator[RunEvent, None]:
    for event in events:
        yield event


def _stored_run(
    durable: DurableProgram[StateT, EventT, MemoryT], store: RunStore, run_id: str, after: int, buffer: int
) -> AsyncGenerator[RunEvent, None]:
    found = _stored(store, durable, run_id)
    if isinstance(found, Failure):
        error = found.failure()
        detail, reason = redact_credentials(error.describe()), type(error).__name__
        return _given(
            Failed(run_id=run_id, position=0, state="", steps=0, reason=reason, detail=detail, result=error)
        )
    record, history = found.unwrap()
    goes_on = record.status not in (RunStatus.FINISHED, RunStatus.WAITING, RunStatus.CANCELLED)
    positions = [history_position(event) for event in history]
    shown = [
        event
        for event, position in zip(history, positions, strict=True)
        if (position is None and not goes_on) or (position is not None and position > after)
    ]
    if not goes_on:  # nothing to go on with: its history, and where it stands
        return _given(*shown)
    events = EventBuffer(buffer)
    for event in shown:
        events.put(event)
    known = sum(position is not None for position in positions)
    started = history[0]
    assert isinstance(started, RunStarted)  # a stored run's events begin with its start
    watch = StreamWatch(run_id, events, _resumes_at(store, durable, record, started), max(known - 1, after))

    async def run() -> tuple[RunEvent, ...]:
        return _standing(watch, await _streamed(durable, watch).aresume(store, run_id))

    return events.events(run)


def astream_durable(
    durable: DurableProgram[StateT, EventT, MemoryT],
    store: RunStore,
    memory: MemoryT | None,
    run_id: str | None,
    after: int,
    buffer: int,
) -> AsyncGenerator[RunEvent, None]:
    """``Durable.astream``: a new run from ``memory``, or the stored run ``run_id`` (see the module)."""
    if memory is None and run_id is not None:
        return _stored_run(durable, store, run_id, after, buffer)
    refused = None if run_id is None else refused_run_id(run_id)
    if refused is not None:  # the one event: no RunStarted shows the refused id, nothing is stored
        state = durable.machine.initial.name
        failed = Failed(
            run_id="",
            position=0,
            state=state,
            steps=0,
            reason=type(refused).__name__,
            detail=refused.describe(),
            result=Failure(refused),
        )
        return _given(failed)
    return _new_run(durable, store, memory, run_id or new_run_id(), buffer)
