"""``GET /events``: every stored run's changes as Server-Sent Events, one connection for a whole list.

A :class:`StoreWatch` looks at the store through the ``RunStore`` protocol (so SQLite,
PostgreSQL, and runs executing in any process alike) every ``interval`` seconds while a client
listens, one look shared by every client; a look reads the runs updated since the last one
(``updates_since``: an index on ``(updated, id)``, with ``runs()`` for a store without it) and
how many runs there are, not every run. Each client compares what changed with what it was
sent and gets, in order of ``(updated, run_id)``, one event per run that is new or whose
status, state, steps, effects, reason or update time changed: ``data:`` the run's record as
``GET /runs/{id}`` shows it, ``id:`` an opaque token of ``(updated, run_id)``. A run that was
removed from the store is an ``event: removed`` with ``{"run_id": ...}`` (the count told the
watch; it then read every run once). A client that comes without ``Last-Event-ID`` gets the
changes after its request was answered (the runs are read before the response starts, so a
page that loads its list after the stream opened misses none); one that reconnects with the
last id it saw first gets every run updated after it, then the changes as they come. If the
store cannot be read, an ``event: error`` with the JSON error ends the stream.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncGenerator, Mapping
from contextlib import aclosing

import anyio
import attrs
from fastapi import APIRouter, Header, Query
from returns.result import Failure
from sse_starlette import EventSourceResponse, ServerSentEvent

from agentsm_fn.durable.errors import DurableError, StoreFailure
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore
from agentsm_fn.durable.stores.protocol.updates import Updates, updates_since
from agentsm_fn.server.context import ServerContext
from agentsm_fn.server.errors import ApiError, error_body, error_for
from agentsm_fn.server.follow import Poller
from agentsm_fn.server.runs import pair_cursor, pair_of, unwrapped
from agentsm_fn.server.shutdown import Shutdown
from agentsm_fn.server.streaming import sse_response
from agentsm_fn.server.values import record_json

__all__ = [
    "CHANGES_INTERVAL",
    "LOOKBACK",
    "RESYNC_LOOKS",
    "Removed",
    "StoreWatch",
    "change_routes",
    "changed_runs",
]

CHANGES_INTERVAL = 0.25
"""The least time between two looks at the store (a run's own stream looks more often)."""

LOOKBACK = 10.0
"""Seconds before the latest update seen that each look reads again: a write whose clock reading is
up to this much older than its commit (it waited for a lock, SQLite's ``busy_timeout``) is still seen."""

RESYNC_LOOKS = 240
"""Every this many looks (a minute at 0.25 s) read every run: whatever a look missed shows then."""

_PAGE = 1000
"""Runs read per query of a look."""

_LOGGED = 256
"""Looks whose changed runs are kept for clients that fell behind (further behind: compare every run)."""

_Mark = tuple[str, str, int, int, str, float]


def _mark(record: RunRecord) -> _Mark:
    return record.status.value, record.state, record.steps, record.effects, record.reason, record.updated


def changed_runs(before: Mapping[str, RunRecord], now: Mapping[str, RunRecord]) -> tuple[RunRecord, ...]:
    """The runs of ``now`` that are new or changed since ``before``, in order of ``(updated, run_id)``.

    Example:
        >>> from agentsm_fn.durable.stores.protocol.store import RunStatus
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


@attrs.frozen
class Removed:
    """A run that was in the store and is no more (sent as ``event: removed``)."""

    run_id: str


class StoreWatch(Poller):
    """Every stored run, looked at while someone listens: the latest records and how often they were read.

    The first look reads every run; each later one only the runs updated since the latest
    update seen, less :data:`LOOKBACK`, and the count
    (:func:`~agentsm_fn.durable.stores.protocol.updates.updates_since`: one query on the ``(updated, id)``
    index). When the count differs from the runs known, a
    run was removed (or written with an update time older than the window): that look, and
    every :data:`RESYNC_LOOKS`-th, reads every run again. ``full_reads`` and ``rows_read``
    count what the looks read.
    """

    def __init__(self, store: RunStore, interval: float, shutdown: Shutdown | None = None) -> None:
        failure = StoreFailure(operation="watch runs", detail="the server failed to read them")
        super().__init__(interval, failure, shutdown)
        self.store = store
        self.records: dict[str, RunRecord] = {}
        self.looks = 0
        self.full_reads = 0
        self.rows_read = 0
        self._latest: float | None = None
        self._log: deque[frozenset[str]] = deque(maxlen=_LOGGED)

    def _updates(self, since: float) -> Updates | DurableError:
        """Every run updated from ``since`` on, a page at a time, and the count (in a worker thread)."""
        found: list[RunRecord] = []
        after = (since, "")
        while True:
            page = updates_since(self.store, after, _PAGE)
            if isinstance(page, Failure):
                failed: DurableError = page.failure()
                return failed
            found.extend(page.unwrap().records)
            if len(page.unwrap().records) < _PAGE:
                return Updates(records=tuple(found), total=page.unwrap().total)
            after = (found[-1].updated, found[-1].run_id)

    async def refresh(self) -> None:
        """Read what changed (every record, now and then), and wake every client to compare it."""
        fresh: tuple[RunRecord, ...] | None = None
        if self._latest is not None and self.looks % RESYNC_LOOKS:
            looked = await anyio.to_thread.run_sync(self._updates, self._latest - LOOKBACK)
            if not isinstance(looked, Updates):
                await self._fail(looked)
                return
            self.rows_read += len(looked.records)
            known = set(self.records) | {record.run_id for record in looked.records}
            fresh = looked.records if looked.total == len(known) else None
        if fresh is None:
            found = await anyio.to_thread.run_sync(self.store.runs)
            if isinstance(found, Failure):
                await self._fail(found.failure())
                return
            fresh = found.unwrap()
            self.rows_read += len(fresh)
            self.full_reads += 1
            gone = set(self.records) - {record.run_id for record in fresh}
        else:
            gone = set()
        async with self._changed:
            touched = set(gone)
            for run_id in gone:
                del self.records[run_id]
            for record in fresh:
                before = self.records.get(record.run_id)
                if before is None or _mark(before) != _mark(record):
                    self.records[record.run_id] = record
                    touched.add(record.run_id)
            if fresh:
                newest = max(record.updated for record in fresh)
                self._latest = newest if self._latest is None else max(self._latest, newest)
            elif self._latest is None:
                self._latest = 0.0
            self._log.append(frozenset(touched))
            self.looks += 1
            self._changed.notify_all()

    def _touched_since(self, looks: int) -> set[str] | None:
        """The runs changed or removed by the looks after ``looks`` (None: too many ago, compare all)."""
        behind = self.looks - looks
        if behind > len(self._log):
            return None
        return set().union(*list(self._log)[len(self._log) - behind :]) if behind else set()

    def join(self) -> None:
        """A client came: after a failed look, a new client has the store read again."""
        if self._task is None or self._task.done():
            self.error, self.over = None, False
        super().join()

    async def changes(
        self, known: Mapping[str, RunRecord], machine: str | None
    ) -> AsyncGenerator[RunRecord | Removed | DurableError, None]:
        """Each run not as in ``known`` when it changes (or goes), for as long as the client listens.

        The first look after the client came is compared run by run with ``known``; later ones
        only on the runs those looks changed.
        """
        self.join()
        try:
            sent = {key: record for key, record in known.items() if machine in (None, record.machine)}
            looks: int | None = None
            start = self.looks
            while True:
                async with self._changed:
                    while self.looks == (start if looks is None else looks) and not self.over:
                        await self._changed.wait()
                    error = self.error
                    touched = None if looks is None else self._touched_since(looks)
                    looks = self.looks
                    ids = set(self.records) | set(sent) if touched is None else touched
                    now = {
                        key: self.records[key]
                        for key in ids
                        if key in self.records and machine in (None, self.records[key].machine)
                    }
                if error is not None:
                    yield error
                    return
                if self.over:  # the server is shutting down
                    return
                gone = sorted(key for key in ids if key in sent and key not in now)
                changed = changed_runs({key: sent[key] for key in now if key in sent}, now)
                for key in gone:
                    del sent[key]
                sent.update(now)
                for record in changed:
                    yield record
                for key in gone:
                    yield Removed(key)
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
    shutdown = Shutdown()
    watch = StoreWatch(ctx.store, max(ctx.poll_interval, CHANGES_INTERVAL), shutdown)

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

        async def sent() -> AsyncGenerator[ServerSentEvent, None]:
            async with aclosing(watch.changes(known, machine)) as items:  # closed with the response
                async for item in items:
                    if isinstance(item, RunRecord):
                        body = json.dumps(record_json(item))
                        yield ServerSentEvent(data=body, id=pair_cursor(item.updated, item.run_id))
                    elif isinstance(item, Removed):
                        yield ServerSentEvent(data=json.dumps({"run_id": item.run_id}), event="removed")
                    else:
                        refused = error_for(item)
                        yield ServerSentEvent(
                            data=json.dumps(error_body(refused.kind, refused.detail)), event="error"
                        )

        return sse_response(sent(), shutdown)

    return routes
