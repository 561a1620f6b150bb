"""Following a stored run as it goes: one follower per run, shared by every client that streams it.

A run's events are derived from the store (a replay of its journal, as ``stored_events``
gives them), so a run executing anywhere, in this process, a worker or the command line, is
followed the same way. A :class:`Follower` polls the store cheaply (the run's record and its
journal rows from the first unfinished one) every ``interval`` seconds, and only when they
changed derives the events again (:class:`~agentsm_fn.durable.operations.following.StoredFollow`: a
replay from the last journal row it settled, not of the whole journal); new history (each
event at its position in the run) is appended, and the run's standing events (waiting,
finished, failed) replace the last ones. Clients
read the shared history by position, so each gets every event once, in order, however many
follow the run. A run's children (and theirs) are followed with it (:class:`~agentsm_fn.durable.
operations.following_children.ChildrenFollow`): their events, each a :class:`~agentsm_fn.stream.
children.ChildEvent`, come after the run's new history, before its standing events; a client is
given all of them from the first. A follower stops when its last client leaves; the :class:`Followers` hub
makes one per run on demand.

A :class:`Poller` is what a follower and the store-wide watch of ``GET /events``
(:class:`~agentsm_fn.server.changes.StoreWatch`) share: a look at the store every
``interval`` seconds while a client listens, one look for every client, and a bug in a
look logged (redacted) and ending every client's stream with a typed failure.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

import anyio
from returns.result import Failure

from agentsm_fn.durable.errors import DurableError, StoreFailure
from agentsm_fn.durable.operations.following import FollowedEvents, StoredFollow
from agentsm_fn.durable.operations.following_children import ChildrenFollow, DurableOf
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.server.shutdown import Shutdown
from agentsm_fn.shell.credentials import redact_credentials
from agentsm_fn.stream.children import ChildEvent
from agentsm_fn.stream.events import EffectRequested, RunEvent

__all__ = ["Follower", "Followers", "Poller"]

_log = logging.getLogger(__name__)

_Marker = tuple[str, float, tuple[tuple[int, bool], ...]]
"""What changes when a run moves: its status, its update time, its journal rows from the first open one."""


class Poller:
    """A look at the store every ``interval`` seconds while a client listens, shared by every client.

    A subclass says what one look is (:meth:`refresh`, which wakes the clients waiting on
    ``_changed`` when it found something). Looking starts with the first client
    (:meth:`join`) and ends after the last (:meth:`leave`) or once :attr:`over`; an
    exception in a look is logged, redacted, and ends every client's stream with ``failure``.
    When ``shutdown`` is set (the server stops), looking ends and so does every client's stream.
    """

    def __init__(self, interval: float, failure: StoreFailure, shutdown: Shutdown | None = None) -> None:
        self.interval, self.failure = interval, failure
        self.shutdown = shutdown or Shutdown()
        self.over = False
        self.error: DurableError | None = None
        self.clients = 0
        self._changed = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    async def refresh(self) -> None:
        """Look at the store once (reads go to a worker thread: the store blocks)."""
        raise NotImplementedError

    async def _fail(self, error: DurableError) -> None:
        async with self._changed:
            self.error, self.over = error, True
            self._changed.notify_all()

    async def _end(self) -> None:
        """The server is shutting down: end every client's stream (with no error)."""
        async with self._changed:
            self.over = True
            self._changed.notify_all()

    async def _run(self) -> None:
        try:
            while not self.over:
                await self.refresh()
                if not self.over and await self.shutdown.wait(self.interval):
                    await self._end()
        except Exception as exc:  # a bug here must end the clients' streams, not leave them waiting
            _log.error("%s: %s", self.failure.describe(), redact_credentials(repr(exc)))
            await self._fail(self.failure)

    def join(self) -> None:
        """A client came: look on the running loop, unless looking goes on already."""
        self.clients += 1
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def leave(self) -> None:
        """A client left; after the last one, stop looking."""
        self.clients -= 1
        if self.clients == 0 and self._task is not None:
            self._task.cancel()


class Follower(Poller):
    """One run, followed in the store; its history so far and where it stands now."""

    def __init__(
        self,
        store: RunStore,
        durable: Durable[Any, Any, Any],
        run_id: str,
        interval: float,
        shutdown: Shutdown | None = None,
        durable_of: DurableOf | None = None,
    ) -> None:
        failure = StoreFailure(operation="follow run", detail="the server failed to follow it", run_id=run_id)
        super().__init__(interval, failure, shutdown)
        self.store, self.durable, self.run_id = store, durable, run_id
        self.history: list[RunEvent] = []
        self.standing: tuple[RunEvent, ...] = ()
        self._open_from = 0
        self._marker: _Marker | None = None
        self._follow = StoredFollow(store, durable, run_id)
        self.children: list[ChildEvent] = []
        self._children = None if durable_of is None else ChildrenFollow(store, run_id, durable_of)

    def _look(self) -> tuple[_Marker, int] | DurableError:
        """The run's marker, and the first journal row still open (in a worker thread: the store blocks)."""
        record = self.store.get(self.run_id)
        if isinstance(record, Failure):
            failed: DurableError = record.failure()
            return failed
        rows = self.store.journal(self.run_id, self._open_from)
        if isinstance(rows, Failure):
            unread: DurableError = rows.failure()
            return unread
        found = rows.unwrap()
        still_open = [row.seq for row in found if row.outcome is None]
        next_open = still_open[0] if still_open else found[-1].seq + 1 if found else self._open_from
        shown = tuple((row.seq, row.outcome is not None) for row in found)
        return (record.unwrap().status.value, record.unwrap().updated, shown), next_open

    def _events(self) -> FollowedEvents | DurableError:
        found = self._follow.look()
        return found.failure() if isinstance(found, Failure) else found.unwrap()

    def _position_of(self) -> Callable[[int], int]:
        """The position of each effect (by journal seq) in the history so far (-1: not seen yet)."""
        requested = [e.position for e in self.history if isinstance(e, EffectRequested) and e.part is None]
        return lambda seq: requested[seq] if 0 <= seq < len(requested) else -1

    def _child_events(self, position_of: Callable[[int], int]) -> tuple[ChildEvent, ...] | DurableError:
        if self._children is None:
            return ()
        found = self._children.look(position_of)
        return found.failure() if isinstance(found, Failure) else found.unwrap()

    async def refresh(self) -> None:
        """Look at the store once; if the run (or a child of it) moved, take its new events, wake clients."""
        looked = await anyio.to_thread.run_sync(self._look)
        if not isinstance(looked, tuple):
            await self._fail(looked)
            return
        marker, next_open = looked
        derived: FollowedEvents | None = None
        if marker != self._marker:
            found = await anyio.to_thread.run_sync(self._events)
            if not isinstance(found, FollowedEvents):
                await self._fail(found)
                return
            derived = found
        if derived is not None:  # positions are stable: a prefix is kept, and covers derived.first
            self.history.extend(derived.history[len(self.history) - derived.first :])
        children = await anyio.to_thread.run_sync(self._child_events, self._position_of())
        if not isinstance(children, tuple):
            await self._fail(children)
            return
        if derived is None and not children:
            return
        async with self._changed:
            self.children.extend(children)
            if derived is not None:
                self._marker, self._open_from = marker, next_open
                self.standing = derived.standing
                self.over = marker[0] in (
                    RunStatus.FINISHED.value,
                    RunStatus.FAILED.value,
                    RunStatus.CANCELLED.value,
                )
            self._changed.notify_all()

    async def events(self, after: int, children: bool = True) -> AsyncIterator[RunEvent | ChildEvent]:
        """The run's history after ``after``, its children's events (if ``children``), its standing.

        A client is given every child event from the first, whatever ``after`` is.
        """
        sent_standing: tuple[RunEvent, ...] = ()
        sent_children = 0 if children else -1
        while True:
            async with self._changed:
                while (
                    len(self.history) <= after + 1
                    and self.standing == sent_standing
                    and not self.over
                    and not 0 <= sent_children < len(self.children)
                ):
                    await self._changed.wait()
                fresh = self.history[after + 1 :]
                kids = self.children[sent_children:] if children else []
                standing, over = self.standing, self.over
            for event in fresh:
                yield event
            for kid in kids:
                yield kid
            after += len(fresh)
            sent_children += len(kids)
            if standing != sent_standing:
                for event in standing:
                    yield event
                sent_standing = standing
            if over:
                return


class Followers:
    """A follower per streamed run: made when its first client comes, dropped after its last."""

    def __init__(
        self,
        store: RunStore,
        interval: float,
        shutdown: Shutdown | None = None,
        durable_of: DurableOf | None = None,
    ) -> None:
        self.store, self.interval, self.durable_of = store, interval, durable_of
        self.shutdown = shutdown or Shutdown()
        self._runs: dict[str, Follower] = {}

    async def stream(
        self, durable: Durable[Any, Any, Any], run_id: str, after: int, children: bool = True
    ) -> AsyncGenerator[RunEvent | ChildEvent | DurableError, None]:
        """Every event of ``run_id`` after position ``after``, and its children's, shared with other clients.

        If the run cannot be read (any more), the last item is the error that says why.
        """
        follower = self._runs.get(run_id)
        if follower is None:
            follower = self._runs[run_id] = Follower(
                self.store, durable, run_id, self.interval, self.shutdown, self.durable_of
            )
        follower.join()
        try:
            async for event in follower.events(after, children):
                yield event
            if follower.error is not None:
                yield follower.error
        finally:
            follower.leave()
            if follower.clients == 0:
                self._runs.pop(run_id, None)
