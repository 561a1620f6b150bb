"""A stored run's events look after look, replaying only the journal from its last settled row on.

:func:`~agentsm_fn.durable.running.streaming.stored_events` replays the whole journal; a follower
that did so on every change of a long run would pay for its whole history each time.
:class:`StoredFollow` keeps where its last replay stood: the snapshot after the last
*settled* row, one whose outcome was taken and after which the journal has another row.
Such a row never changes again (only a run's last row is answered, completed or forgotten),
so replaying the rows from there on gives the snapshot the whole replay gives, and the
history events after the settled point (:func:`~agentsm_fn.shell.stream_history.history_after`)
are the whole history's from that position on. Each look reads the run's record, the journal
from the settled row on and the tail: its cost follows what changed since, not the run's
length (``rows_read`` counts the journal rows it read).
"""

from __future__ import annotations

import enum
from typing import Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.failures import RunFailed
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running._loading import initial_snapshot
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.replay import Fold
from agentsm_fn.durable.running.streaming import _started, _stored_standing
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore
from agentsm_fn.shell.credentials import credential_redactor
from agentsm_fn.shell.stream_history import HistoryMark, history_after, history_mark
from agentsm_fn.stream.events import RunEvent, RunStarted

__all__ = ["FollowedEvents", "StoredFollow"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@attrs.frozen(kw_only=True)
class FollowedEvents:
    """One look: the run's record, its history from position ``first`` on, and where it stands."""

    record: RunRecord
    first: int
    history: tuple[RunEvent, ...]
    standing: tuple[RunEvent, ...]


@attrs.frozen(kw_only=True)
class _Settled(Generic[StateT, MemoryT]):
    """The replay after journal row ``seq - 1`` (settled), and where its history stands."""

    snapshot: Snapshot[StateT, MemoryT]
    failed: RunFailed[StateT, MemoryT] | None
    seq: int
    mark: HistoryMark


class StoredFollow(Generic[StateT, EventT, MemoryT]):
    """The events of stored run ``run_id``, look after look, each look replaying from the last settled row."""

    def __init__(self, store: RunStore, durable: Durable[StateT, EventT, MemoryT], run_id: str) -> None:
        self.store, self.durable, self.run_id = store, durable, run_id
        self.rows_read = 0
        self._settled: _Settled[StateT, MemoryT] | None = None
        self._started: RunStarted | None = None

    def _start(self) -> _Settled[StateT, MemoryT] | DurableError:
        """The run before its first journal row (read once: a run's start never changes)."""
        start = self.store.start(self.run_id)
        if isinstance(start, Failure):
            failed: DurableError = start.failure()
            return failed
        initial = initial_snapshot(self.store, self.durable.machine, self.run_id)
        if isinstance(initial, Failure):
            unread: DurableError = initial.failure()
            return unread
        state, steps = start.unwrap()
        self._started = _started(self.durable, self.run_id, state or self.durable.machine.initial.name, steps)
        snapshot = initial.unwrap()[0]
        return _Settled(snapshot=snapshot, failed=None, seq=0, mark=history_mark(snapshot))

    def look(self) -> Result[FollowedEvents, DurableError]:
        """The run's events as :func:`~agentsm_fn.durable.running.streaming.stored_events` gives them now.

        ``history`` holds those from ``first`` on (the events before it are the ones the
        previous looks gave there); the first look gives them all.
        """
        found = self.store.get(self.run_id)
        if isinstance(found, Failure):
            return found
        settled = self._settled if self._settled is not None else self._start()
        if not isinstance(settled, _Settled):
            return Failure(settled)
        rows = self.store.journal(self.run_id, settled.seq)
        if isinstance(rows, Failure):
            return rows
        tail = self.store.tail(self.run_id)
        if isinstance(tail, Failure):
            return tail
        self.rows_read += len(rows.unwrap())
        latest = [settled]  # the last row settled so far (one cell: the fold calls back into it)

        def settle(
            seq: int, snapshot: Snapshot[StateT, MemoryT], failed: RunFailed[StateT, MemoryT] | None
        ) -> None:
            mark = history_mark(snapshot, latest[0].mark)  # counts only the rows since
            latest[0] = _Settled(snapshot=snapshot, failed=failed, seq=seq + 1, mark=mark)

        fold = Fold(machine=self.durable.machine, run_id=self.run_id, settled=settle)
        replay = fold.replay(settled.snapshot, settled.failed, settled.seq, rows.unwrap(), tail.unwrap())
        if isinstance(replay, Failure):
            return replay
        snapshot, failed = replay.unwrap()
        history = history_after(self.run_id, snapshot, credential_redactor(), settled.mark)
        first = settled.mark[2]
        if settled.seq == 0 and self._started is not None:  # no row settled yet: the whole history
            history, first = (self._started, *history), 0
        record = found.unwrap()
        standing = _stored_standing(record, first + len(history), snapshot, failed)
        self._settled = latest[0]
        return Success(FollowedEvents(record=record, first=first, history=history, standing=standing))
