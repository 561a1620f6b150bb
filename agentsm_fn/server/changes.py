"""``GET /events``: every stored run's changes as Server-Sent Events, one connection for a whole list.

A :class:`StoreWatch` looks at the store through the ``RunStore`` protocol alone (``runs()``, so
SQLite, PostgreSQL, and runs executing in any process alike) every ``interval`` seconds while
a client listens, one look shared by every client. Each client compares what the store holds
with what it was sent and gets, in order of ``(updated, run_id)``, one event per run that is
new or whose status, state, steps, effects, reason or update time changed: ``data:`` the
run's record as ``GET /runs/{id}`` shows it, ``id:`` an opaque token of ``(updated, run_id)``.
A run that was forgotten is an ``event: removed`` with ``{"run_id": ...}``. A client that
comes without ``Last-Event-ID`` gets the changes after its request was answered (the runs are
read before the response starts, so a page that loads its list after the stream opened misses
none); one that reconnects with the last id it saw first gets every run updated after it,
then the changes as they come. If the store
cannot be read, an ``event: error`` with the JSON error ends the stream.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping

import anyio
from fastapi import APIRouter, Header, Query
from returns.result import Failure
from sse_starlette import EventSourceResponse, ServerSentEvent

from agentsm_fn.durable.errors import DurableError, StoreFailure
from agentsm_fn.durable.store import RunRecord, RunStore
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError, error_body, error_for
from agentsm_fn.server.events import PING_SECONDS
from agentsm_fn.server.follow import Poller
from agentsm_fn.server.runs import pair_cursor, pair_of, unwrapped
from agentsm_fn.server.values import record_json

__all__ = ["CHANGES_INTERVAL", "StoreWatch", "change_routes", "changed_runs"]

CHANGES_INTERVAL = 0.25
"""The least time between two looks at every run (each reads all records; a run's stream looks more often)."""

_Mark = tuple[str, str, int, int, str, float]


def _mark(record: RunRecord) -> _Mark:
    return record.status.value, record.state, record.steps, record.effects, record.reason, record.updated


def changed_runs(before: Mapping[str, RunRecord], now: Mapping[str, RunRecord]) -> tuple[RunRecord, ...]:
    """The runs of ``now`` that are new or changed since ``before``, in order of ``(updated, run_id)``.

    Example:
        >>> from agentsm_fn.durable.store import RunStatus
        >>> def run(name, status, updated):
        ...     return RunRecord(run_id=name, machine="m:M", fingerprint="f", status=status,
        ...                      created=0.0, updated=updated)
        >>> before = {"a": run("a", RunStatus.RUNNING, 1.0), "b": run("b", RunStatus.READY, 1.0)}
        >>> now = {"a": run("a", RunStatus.FINISHED, 3.0), "c": run("c", RunStatus.READY, 2.0)}
        >>> [record.run_id for record in changed_runs(before, now)]
        ['c', 'a']
    """
    changed = [
        record
        for run_id, record in now.items()
        if run_id not in before or _mark(before[run_id]) != _mark(record)
    ]
    changed.sort(key=lambda record: (record.updated, record.run_id))
    return tuple(changed)


class StoreWatch(Poller):
    """Every stored run, looked at while someone listens: the latest records and how often they were read."""

    def __init__(self, store: RunStore, interval: float) -> None:
        failure = StoreFailure(operation="watch runs", detail="the server failed to read them")
        super().__init__(interval, failure)
        self.store = store
        self.records: dict[str, RunRecord] = {}
        self.looks = 0

    async def refresh(self) -> None:
        """Read every record, and wake every client (each compares with what it was sent)."""
        found = await anyio.to_thread.run_sync(self.store.runs)
        if isinstance(found, Failure):
            await self._fail(found.failure())
            return
        async with self._changed:
            self.records = {record.run_id: record for record in found.unwrap()}
            self.looks += 1
            self._changed.notify_all()

    def join(self) -> None:
        """A client came: after a failed look, a new client has the store read again."""
        if self._task is None or self._task.done():
            self.error, self.over = None, False
        super().join()

    async def changes(
        self, known: Mapping[str, RunRecord], machine: str | None
    ) -> AsyncIterator[RunRecord | DurableError]:
        """Each run not as in ``known`` when it changes, for as long as the client listens."""
        self.join()
        try:
            sent = {key: record for key, record in known.items() if machine in (None, record.machine)}
            looks = self.looks
            while True:
                async with self._changed:
                    while self.looks == looks and not self.over:
                        await self._changed.wait()
                    looks, error = self.looks, self.error
                    now = {
                        key: record
                        for key, record in self.records.items()
                        if machine in (None, record.machine)
                    }
                if error is not None:
                    yield error
                    return
                changed = changed_runs(sent, now)
                sent = now
                for record in changed:
                    yield record
        finally:
            self.leave()


def _change_id(header: str | None, query: str | None) -> tuple[float, str] | None:
    given = header if header is not None and header.strip() else query
    if given is None:
        return None
    pair = pair_of(given.strip())
    if pair is None:
        raise ApiError(
            422, "invalid_last_event_id", "Last-Event-ID (or after) is not an event id this server sent"
        )
    return pair


def change_routes(ctx: ServerContext) -> APIRouter:
    """The store-wide change stream over ``ctx.store`` (one watch shared by every client)."""
    routes = APIRouter(tags=["events"])
    watch = StoreWatch(ctx.store, max(ctx.poll_interval, CHANGES_INTERVAL))

    @routes.get(
        "/events",
        response_class=EventSourceResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "each run as it changes"}},
    )
    async def changes(
        last_event_id: str | None = Header(default=None, max_length=400),
        after: str | None = Query(default=None, max_length=400),
        machine: str | None = Query(default=None, min_length=1, max_length=200),
    ) -> EventSourceResponse:
        """Every run's changes as Server-Sent Events (``data:`` its record; resume with ``Last-Event-ID``)."""
        since = _change_id(last_event_id, after)
        every = unwrapped(await anyio.to_thread.run_sync(ctx.store.runs))
        known = {
            record.run_id: record
            for record in every
            if since is None or (record.updated, record.run_id) <= since
        }

        async def sent() -> AsyncIterator[ServerSentEvent]:
            async for item in watch.changes(known, machine):
                if isinstance(item, RunRecord):
                    body = json.dumps(record_json(item))
                    yield ServerSentEvent(data=body, id=pair_cursor(item.updated, item.run_id))
                else:
                    refused = error_for(item)
                    yield ServerSentEvent(
                        data=json.dumps(error_body(refused.kind, refused.detail)), event="error"
                    )

        return EventSourceResponse(sent(), ping=PING_SECONDS)

    return routes
