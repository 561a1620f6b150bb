"""Answering a waiting run from any process: list what waits, answer it once.

A run whose performer suspends (a human approval, a callback from another system) is
stored as WAITING with the effect it waits on. :func:`pending` lists those effects in
any process; :func:`answer` commits the answer, once: answering an effect that was
answered already, by this process or another at the same moment, is refused with
:class:`~agentsm_fn.durable.errors.AnswerRefused` (SQLite's conditional update decides
which one wins). The run is then READY: ``Durable.resume`` (or ``recover``) runs it on.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react.outcomes import Approved, Modified, Rejected
from agentsm_fn.core.effects import Effect, describe_effect
from agentsm_fn.durable.errors import AnswerRefusal, AnswerRefused, CodecFailure, DurableError
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.store import JournalRow, RunRecord, RunStatus, RunStore
from agentsm_fn.shell.clock import Clock, system_clock

__all__ = ["PendingAnswer", "answer", "answer_for", "pending", "waiting_effect", "waiting_on"]


@attrs.frozen(kw_only=True)
class PendingAnswer:
    """An effect a stored run waits on: the run, the effect's number and summary, the effect itself.

    ``effect`` is None when its class is not loaded in this process (``problem`` says so);
    the summary is always there. ``path`` is the runs above ``run_id`` when it was found under
    another run (:func:`~agentsm_fn.durable.operations.waiting_below.pending_of`): from the run
    asked about down to its parent; empty for a run's own effect.
    """

    run_id: str
    seq: int
    summary: str
    effect: Effect[object] | None
    problem: CodecFailure | None = None
    path: tuple[str, ...] = ()


def pending(store: RunStore) -> Result[tuple[PendingAnswer, ...], DurableError]:
    """Every effect that waits for an answer, oldest run first.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> pending(store).unwrap()
        ()
        >>> store.close()
    """
    found = store.waiting()
    if isinstance(found, Failure):
        return found
    return Success(tuple(_pending_answer(run_id, row) for run_id, row in found.unwrap()))


def waiting_effect(store: RunStore, run_id: str, seq: int) -> Result[PendingAnswer | None, DurableError]:
    """Effect ``seq`` of ``run_id`` as :func:`pending` lists it, if it waits for an answer, else None.

    It reads that one run (its record and its journal from ``seq``), not every waiting run.

    Example:
        >>> import tempfile, os
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> store = SqliteStore.open(os.path.join(tempfile.mkdtemp(), "runs.db")).unwrap()
        >>> waiting_effect(store, "r1", 1).failure().describe()
        'no stored run r1'
        >>> store.close()
    """
    record = store.get(run_id)
    if isinstance(record, Failure):
        return record
    rows = store.journal(run_id, seq)
    if isinstance(rows, Failure):
        return rows
    row = next((r for r in rows.unwrap() if r.seq == seq), None)
    finished = record.unwrap().status is RunStatus.FINISHED
    if row is None or not row.waiting or row.outcome is not None or finished:
        return Success(None)
    return Success(_pending_answer(run_id, row))


def waiting_on(store: RunStore, record: RunRecord) -> Result[PendingAnswer | None, DurableError]:
    """The effect a WAITING run waits on, as :func:`pending` lists it (None: the run does not wait).

    A run stops waiting with ``effects`` counting the effects before the one it waits on, so
    that one is read (``journal(run_id, effects)``): one row, not the run's whole journal, which
    is read only if that row is not the waiting one.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
        >>> record = RunRecord(run_id="r1", machine="m:M", fingerprint="f", status=RunStatus.READY,
        ...                    created=0.0, updated=0.0)
        >>> waiting_on(SqliteStore.open(":memory:").unwrap(), record).unwrap() is None
        True
    """
    if record.status is not RunStatus.WAITING:
        return Success(None)
    for start in (record.effects, 0):
        rows = store.journal(record.run_id, start)
        if isinstance(rows, Failure):
            return rows
        row = next((r for r in reversed(rows.unwrap()) if r.waiting and r.outcome is None), None)
        if row is not None:
            return Success(_pending_answer(record.run_id, row))
    return Success(None)


def _pending_answer(run_id: str, row: JournalRow) -> PendingAnswer:
    """A waiting journal row as the answer it waits for (its effect decoded, or why not)."""
    decoded = from_bytes(row.effect or b"", Effect)
    effect, problem = None, None
    if isinstance(decoded, Success):
        effect = decoded.unwrap()
    else:
        problem = decoded.failure().within(run_id, f"journal[{row.seq}].effect")
    return PendingAnswer(run_id=run_id, seq=row.seq, summary=row.summary, effect=effect, problem=problem)


def answer_for(
    effect: Effect[object] | None, approve: bool, reason: str, arguments: Mapping[str, object] | None = None
) -> object | None:
    """The outcome that approves (with changed ``arguments``, if given) or rejects ``effect``.

    The first of the answer's kinds the effect accepts: ``Approved()`` (or ``Modified(arguments)``)
    or ``True`` to approve, ``Rejected(reason)`` or ``False`` to reject; None if it accepts none
    of them. Without the effect (its class not loaded here), the plain boolean.

    Example:
        >>> answer_for(None, True, "")
        True
    """
    approval: object = Approved() if arguments is None else Modified(arguments)
    candidates: tuple[object, ...] = (approval, True) if approve else (Rejected(reason or "rejected"), False)
    if arguments is not None and approve:
        candidates = (approval,)
    if effect is None:
        return candidates[-1]
    return next((c for c in candidates if effect.accepts(c)), None)


def answer(
    store: RunStore, run_id: str, seq: int, outcome: object, clock: Clock = system_clock
) -> Result[None, DurableError]:
    """Commit ``outcome`` as the answer to effect ``seq`` of ``run_id``, unless it was answered already.

    The outcome must be of a type the waiting effect accepts; otherwise it is refused
    and nothing is written.
    """
    rows = store.journal(run_id, seq)
    if isinstance(rows, Failure):
        return rows
    row = next((r for r in rows.unwrap() if r.seq == seq), None)
    if row is None or not row.waiting:
        why = "it has no such entry" if row is None else "that entry does not wait for an answer"
        return Failure(AnswerRefused(run_id=run_id, seq=seq, kind=AnswerRefusal.NOTHING_WAITS, why=why))
    if row.outcome is not None:
        why = "it was answered already"
        return Failure(AnswerRefused(run_id=run_id, seq=seq, kind=AnswerRefusal.ANSWERED_ALREADY, why=why))
    effect = from_bytes(row.effect or b"", Effect)
    if isinstance(effect, Failure):
        return Failure(effect.failure().within(run_id, f"journal[{seq}].effect"))
    waiting = effect.unwrap()
    if not waiting.accepts(outcome):
        why = f"{describe_effect(waiting)} does not accept a {type(outcome).__qualname__}"
        return Failure(AnswerRefused(run_id=run_id, seq=seq, kind=AnswerRefusal.WRONG_TYPE, why=why))
    encoded = to_bytes(outcome)
    if isinstance(encoded, Failure):
        return Failure(encoded.failure().within(run_id, f"journal[{seq}].outcome"))
    return store.answer(run_id, seq, encoded.unwrap(), clock())
