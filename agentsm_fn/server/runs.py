"""``/runs``: stored runs listed a page at a time, one run, its trace, its journal, its state at a step.

Everything here reads: the trace and the state at a step are replays of the run's journal
(nothing is performed), the journal shows each effect's and outcome's summary (never the raw
values), and every string is redacted.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Literal, TypeVar

from fastapi import APIRouter, Query
from returns.result import Failure, Result

from agentsm_fn.core.effects import describe_effect
from agentsm_fn.durable.errors import DurableError, NoSuchStep
from agentsm_fn.durable.operations.answers import PendingAnswer
from agentsm_fn.durable.operations.waiting_below import pending_of
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.codec import from_bytes
from agentsm_fn.durable.stores.protocol.pages import RunQuery, runs_page
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError, error_for
from agentsm_fn.server.models import (
    JournalItem,
    PendingItem,
    RunDetail,
    RunPage,
    RunState,
    RunSummary,
    TraceRow,
)
from agentsm_fn.server.values import Json, public_json, record_json
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.shell.notes import outcome_note

__all__ = ["cursor_of", "pair_cursor", "pair_of", "pending_item", "run_routes", "unwrapped"]

T = TypeVar("T")

StatusName = Literal["running", "waiting", "ready", "finished", "failed"]


def unwrapped(result: Result[T, DurableError]) -> T:
    """The value of ``result``, or its error raised as the :class:`ApiError` that reports it."""
    if isinstance(result, Failure):
        raise error_for(result.failure())
    return result.unwrap()


def cursor_of(record: RunRecord) -> str:
    """The cursor of the page that follows ``record`` (opaque to clients: base64 of JSON).

    Example:
        >>> record = RunRecord(run_id="r1", machine="m:M", fingerprint="f",
        ...                    status=RunStatus.READY, created=2.5, updated=2.5)
        >>> pair_of(cursor_of(record))
        (2.5, 'r1')
    """
    return pair_cursor(record.created, record.run_id)


def pair_cursor(number: float, run_id: str) -> str:
    """A time and a run id as one opaque token (base64 of JSON): a page's cursor, a change's event id.

    Example:
        >>> pair_cursor(2.5, "r1")
        'WzIuNSwicjEiXQ'
    """
    text = json.dumps([number, run_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def pair_of(cursor: str) -> tuple[float, str] | None:
    """The time and run id of a :func:`pair_cursor` token (None: not one this server gave).

    Example:
        >>> pair_of("WzIuNSwicjEiXQ"), pair_of("nonsense")
        ((2.5, 'r1'), None)
    """
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        decoded = None
    if (
        isinstance(decoded, list)
        and len(decoded) == 2
        and isinstance(decoded[0], int | float)
        and not isinstance(decoded[0], bool)
        and isinstance(decoded[1], str)
    ):
        return float(decoded[0]), decoded[1]
    return None


def _after(cursor: str) -> tuple[float, str]:
    pair = pair_of(cursor)
    if pair is None:
        raise ApiError(
            422, "invalid_cursor", "cursor is not one this server gave (take it from a page's next)"
        )
    return pair


def pending_item(waiting: PendingAnswer) -> PendingItem:
    """A waiting effect as the API shows it: its run, number, class and summary (redacted)."""
    kind = None if waiting.effect is None else redact_credentials(type(waiting.effect).__qualname__)
    return PendingItem(
        run_id=waiting.run_id,
        seq=waiting.seq,
        type=kind,
        summary=redact_credentials(waiting.summary),
        path=list(waiting.path),
    )


def _summary(record: RunRecord) -> RunSummary:
    return RunSummary.model_validate(record_json(record))


def _outcome(run_id: str, seq: int, outcome: bytes | None) -> str | None:
    if outcome is None:
        return None
    decoded = from_bytes(outcome, object)
    if isinstance(decoded, Failure):
        return f"unreadable: {decoded.failure().within(run_id, f'journal[{seq}].outcome').describe()}"
    return redact_credentials(outcome_note(decoded.unwrap())[0])


def run_routes(ctx: ServerContext) -> APIRouter:
    """The reading ``/runs`` routes over ``ctx.store``."""
    routes = APIRouter(tags=["runs"])

    def record(run_id: str) -> RunRecord:
        return unwrapped(ctx.store.get(run_id))

    @routes.get("/runs", response_model=RunPage)
    def runs(
        status: StatusName | None = None,
        machine: str | None = Query(default=None, max_length=500),
        limit: int = Query(default=50, ge=1, le=500),
        cursor: str | None = Query(default=None, max_length=1000),
    ) -> RunPage:
        """Stored runs, newest first, a page at a time (follow ``next`` as ``cursor``)."""
        query = RunQuery(
            status=None if status is None else RunStatus(status),
            machine=machine,
            limit=limit + 1,  # one more than asked: there is a next page if it comes back
            after=None if cursor is None else _after(cursor),
        )
        found = unwrapped(runs_page(ctx.store, query))
        page = found[:limit]
        following = cursor_of(page[-1]) if len(found) > limit else None
        return RunPage(runs=[_summary(r) for r in page], next=following)

    @routes.get("/runs/{run_id}", response_model=RunDetail)
    def run(run_id: str) -> RunDetail:
        """One stored run, as of its last stop; a waiting one with the effect it waits on (``pending``)."""
        found = record(run_id)
        waiting = unwrapped(pending_of(ctx.store, run_id)) if found.status is RunStatus.WAITING else ()
        pending = pending_item(waiting[0]) if waiting else None
        return RunDetail.model_validate({**record_json(found), "pending": pending, "result": result(found)})

    @routes.get("/runs/{run_id}/pending", response_model=list[PendingItem])
    def run_pending(run_id: str) -> list[PendingItem]:
        """What the run waits for: its own effect, or, waiting on child runs, each waiting descendant's."""
        record(run_id)  # 404 for a run not stored
        return [pending_item(p) for p in unwrapped(pending_of(ctx.store, run_id))]

    def result(found: RunRecord) -> Json:
        """A finished run's result as JSON, by replay (None: not finished, or its program names none)."""
        durable = ctx.durables.get(found.machine)
        if found.status is not RunStatus.FINISHED or durable is None or durable.result is None:
            return None
        replayed = replay_stored(ctx.store, durable.machine, found.run_id)
        return None if isinstance(replayed, Failure) else public_json(durable.result_of(replayed.unwrap()))

    @routes.get("/runs/{run_id}/trace", response_model=list[TraceRow])
    def trace(run_id: str) -> list[TraceRow]:
        """The run's trace, by replay of its journal (no effect performed)."""
        durable = ctx.durable(record(run_id).machine)
        snapshot = unwrapped(replay_stored(ctx.store, durable.machine, run_id))
        return [
            TraceRow(
                step=e.step,
                at=e.timestamp,
                state=e.state,
                event=redact_credentials(e.event),
                target=e.target,
                data=redact_credentials(e.data),
            )
            for e in snapshot.trace
        ]

    @routes.get("/runs/{run_id}/journal", response_model=list[JournalItem])
    def journal(run_id: str) -> list[JournalItem]:
        """The run's effects, each with its summary and its outcome's summary (never the raw values)."""
        record(run_id)
        rows = unwrapped(ctx.store.journal(run_id))
        return [
            JournalItem(
                seq=row.seq,
                effect=redact_credentials(row.summary),
                outcome=_outcome(run_id, row.seq, row.outcome),
                waiting=row.waiting,
                at=row.at,
            )
            for row in rows
        ]

    @routes.get("/runs/{run_id}/state", response_model=RunState)
    def state(run_id: str, step: int | None = Query(default=None, ge=0, le=10**9)) -> RunState:
        """The run's state and memory after ``step`` transitions (default: as far as its journal goes)."""
        durable = ctx.durable(record(run_id).machine)
        snapshot = unwrapped(replay_stored(ctx.store, durable.machine, run_id, step))
        if step is not None and snapshot.steps < step:
            raise error_for(NoSuchStep(run_id=run_id, step=step, reaches=snapshot.steps))
        pending = snapshot.pending
        return RunState(
            run_id=run_id,
            state=snapshot.state.name,
            status=snapshot.status.value,
            steps=snapshot.steps,
            memory=public_json(snapshot.memory),
            pending=None if pending is None else redact_credentials(describe_effect(pending)),
        )

    return routes
