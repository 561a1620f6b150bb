"""A run's events from its snapshot: its history (trace and journal) and where it stands (no IO).

:func:`history_of` reads a snapshot's trace and journal (a finished run's, or one a
replay of a stored journal produced) and gives the history events a live stream gave,
at the same positions; :func:`standing_events` says where a run stopped. Durations come
from the clock readings the journal kept (a live stream measures them), and texts that
may quote a credential go through ``redact`` (the shell's redaction; this module does no IO).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.journal import digest_summary, effect_digest
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.shell.notes import outcome_kind, outcome_note
from agentsm_fn.stream.events import (
    AwaitingOutcome,
    EffectCompleted,
    EffectRequested,
    Failed,
    Finished,
    OutcomeKind,
    RunEvent,
    RunStarted,
    Transitioned,
)

__all__ = ["HistoryMark", "history_after", "history_length", "history_mark", "history_of", "standing_events"]

StateT = TypeVar("StateT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

Redact = Callable[[str], str]
"""Takes credentials out of a text (``agentsm_fn.shell.redact_credentials``)."""


def _name(value: object) -> str:
    return value.name if isinstance(value, enum.Enum) else str(value)


def history_length(snapshot: Snapshot[StateT, MemoryT]) -> int:
    """How many history events a run has up to ``snapshot``: the next one's position.

    Example:
        >>> class S(enum.Enum):
        ...     A = 1
        >>> history_length(Snapshot(state=S.A, memory=0))
        1
    """
    return 1 + len(snapshot.trace) + len(snapshot.journal.outcomes)


def history_of(
    started: RunStarted, snapshot: Snapshot[StateT, MemoryT], redact: Redact
) -> tuple[RunEvent, ...]:
    """``started`` and the history of the run up to ``snapshot``, from its trace and journal.

    Example:
        >>> from agentsm_fn.core.trace import Trace
        >>> class S(enum.Enum):
        ...     A = 1
        ...     B = 2
        >>> trace = Trace().record(1, S.A, S.B, S.B, "", 5.0)
        >>> start = RunStarted(run_id="r", machine="m", fingerprint="f", state="A")
        >>> [type(e).__name__ for e in history_of(start, Snapshot(state=S.B, memory=0, trace=trace), str)]
        ['RunStarted', 'Transitioned']
    """
    return (started, *history_after(started.run_id, snapshot, redact, (0, 0, 1)))


HistoryMark = tuple[int, int, int]
"""Where a run's history stands in a snapshot: its trace rows, its journal rows, the next position."""


def history_mark(snapshot: Snapshot[StateT, MemoryT], since: HistoryMark = (0, 0, 1)) -> HistoryMark:
    """The mark of the whole history of ``snapshot``, if every effect it requested was answered.

    ``since``: the mark of a snapshot it grew from; only the rows after it are counted.

    Example:
        >>> class S(enum.Enum):
        ...     A = 1
        >>> history_mark(Snapshot(state=S.A, memory=0))
        (0, 0, 1)
    """
    trace_from, journal_from, position = since
    trace, journal = snapshot.trace.rows, snapshot.journal.rows
    outcomes = sum(type(journal[n]) is tuple for n in range(journal_from, len(journal)))
    return len(trace), len(journal), position + len(trace) - trace_from + outcomes


def history_after(
    run_id: str, snapshot: Snapshot[StateT, MemoryT], redact: Redact, mark: HistoryMark
) -> tuple[RunEvent, ...]:
    """The history events of ``snapshot`` after ``mark`` (of a snapshot it grew from; see :func:`history_of`).

    A snapshot that answered every effect it requested, grown on, keeps its history as the
    prefix of the grown one's: the events after its :func:`history_mark` are these.
    """
    trace, journal = snapshot.trace.rows, snapshot.journal.rows
    trace_from, journal_from, position = mark
    outcomes = (journal[n] for n in range(journal_from, len(journal)) if type(journal[n]) is tuple)
    events: list[RunEvent] = []
    for index in range(trace_from, len(trace)):
        step, state, event, target, data, at = trace[index]
        if target is not None:
            events.append(
                Transitioned(
                    run_id=run_id,
                    position=position,
                    step=step,
                    state=_name(state),
                    event=_name(event),
                    target=_name(target),
                    at=at,
                    data=redact(data) if isinstance(data, str) and data else "",
                )
            )
            position += 1
            continue
        kind, summary = digest_summary(event)
        events.append(
            EffectRequested(
                run_id=run_id, position=position, state=_name(state), effect=kind, summary=summary
            )
        )
        answered = next(outcomes, None)
        if answered is not None:
            done_at, _digest, outcome = answered  # type: ignore[misc]  # an outcome row is a 3-tuple
            note, failed = outcome_note(outcome)
            completed = outcome_kind(outcome, failed)
            events.append(
                EffectCompleted(
                    run_id=run_id,
                    position=position + 1,
                    requested=position,
                    effect=kind,
                    outcome=completed,
                    note=note if completed is OutcomeKind.OK else redact(note),
                    seconds=max(done_at - at, 0.0),
                    value=outcome,
                )
            )
            position += 1
        position += 1
    return tuple(events)


def standing_events(
    run_id: str,
    position: int,
    result: Result[Snapshot[StateT, MemoryT], RunFailed[StateT, MemoryT]],
    carried: object,
    redact: Redact,
    suspended_for: float = 0.0,
) -> tuple[RunEvent, ...]:
    """Where a run that stopped with ``result`` stands, the next history position being ``position``.

    ``carried`` is what the run call returned (it goes into the events' ``result``);
    ``suspended_for`` the seconds the pending effect ran before it suspended the run.

    Example:
        >>> from returns.result import Success
        >>> from agentsm_fn.core.snapshot import Status
        >>> class S(enum.Enum):
        ...     DONE = 1
        >>> done = Snapshot(state=S.DONE, memory=0, status=Status.FINISHED, steps=3)
        >>> standing_events("r", 7, Success(done), "the result", str)[0]
        Finished(run_id='r', position=7, state='DONE', steps=3)
    """
    if isinstance(result, Failure):
        failed = result.failure()
        stopped = failed.snapshot
        return (
            Failed(
                run_id=run_id,
                position=position,
                state=stopped.state.name,
                steps=stopped.steps,
                reason=type(failed.reason).__name__,
                detail=redact(failed.reason.describe()),
                result=carried,
            ),
        )
    snapshot = result.unwrap()
    if snapshot.finished:
        return (
            Finished(
                run_id=run_id,
                position=position,
                state=snapshot.state.name,
                steps=snapshot.steps,
                result=carried,
            ),
        )
    if snapshot.pending is None:  # READY: the run did not stop (a run call never returns this)
        return ()
    effect, summary = digest_summary(effect_digest(snapshot.pending))
    requested = position - 1
    return (
        EffectCompleted(
            run_id=run_id,
            position=position,
            requested=requested,
            effect=effect,
            outcome=OutcomeKind.SUSPENDED,
            note="suspended",
            seconds=suspended_for,
        ),
        AwaitingOutcome(
            run_id=run_id,
            position=position,
            requested=requested,
            effect=effect,
            summary=summary,
            result=carried,
        ),
    )
