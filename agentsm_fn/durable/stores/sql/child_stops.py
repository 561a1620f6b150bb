"""Where a parent stops to wait on its children, and where a child ends: each one transaction, in SQL.

Both SQLite and PostgreSQL run these alike (``?`` marks a parameter; see
:mod:`agentsm_fn.durable.stores.protocol.children`): a parent's wait stores its children's rows,
the first children's runs, its waiting entry, its checkpoint and its stop; a child's end stores
its stop, its outcome and (the one child of a ``ChildRun``) its parent's answer. Each is fenced
by ownership with its first statement, which also locks the run's row (PostgreSQL), so a process
that lost its run writes nothing.
"""

from __future__ import annotations

from returns.result import Failure, Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.children import ChildrenWait, ChildStop, NewChild
from agentsm_fn.durable.stores.protocol.store import NewRun
from agentsm_fn.durable.stores.sql.group import LOST
from agentsm_fn.durable.stores.sql.reads import comparable
from agentsm_fn.durable.stores.sql.rows import checkpoint_values, new_run_values, pack_ticks
from agentsm_fn.durable.stores.sql.writes import INSERT_RUN, Execute, StoreWrites, answering

__all__ = ["StoreChildStops", "insert_children"]


def insert_children(
    execute: Execute, children: tuple[NewChild, ...], start: tuple[NewRun, ...], taken: bool = False
) -> int:
    """Insert the rows of ``children`` (keeping those stored); queue ``start`` if all were new. Rows new.

    ``taken``: the runs of ``start`` are stored RUNNING, owned by their ``owner``, instead of queued.
    """
    added = 0
    for c in children:
        added += execute(
            "INSERT INTO children(run_id, parent, seq, idx, size, program, memory, lim, cancel_rest) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING",
            (c.run_id, c.parent, c.seq, c.index, c.size, c.program, c.memory, c.limit, int(c.cancel_rest)),
        ).rowcount
    if added == len(children):
        for run in start:
            execute(INSERT_RUN, new_run_values(run, queued=not taken))
    return added


_WAITING = (
    "UPDATE runs SET status = 'waiting', state = ?, steps = ?, effects = ?, reason = '', tail = ?, "
    "updated = ?, owner = NULL, lease_until = NULL, fingerprint = COALESCE(NULLIF(?, ''), fingerprint) "
    "WHERE id = ? AND owner = ?"
)
"""The parent stops WAITING and lets go of its run, if it still owns it (the fence of the whole wait)."""

_CHECKPOINT = (
    "INSERT INTO checkpoints(run_id, seq, state, steps, memory, pending) VALUES (?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (run_id) DO UPDATE SET seq = excluded.seq, state = excluded.state, "
    "steps = excluded.steps, memory = excluded.memory, pending = excluded.pending"
)


class _Lost(Exception):
    """The run is not this owner's: the write's transaction is rolled back, nothing written."""


def _wait_on(execute: Execute, run_id: str, owner: str, wait: ChildrenWait) -> int:
    """The statements of :meth:`StoreChildStops.wait_on_children`, in its transaction."""
    if wait.create is not None:
        execute(INSERT_RUN, new_run_values(wait.create))
    record, row, point = wait.record, wait.wait, wait.checkpoint
    fence = (record.state, record.steps, record.effects, pack_ticks(()), record.updated, record.fingerprint)
    if not execute(_WAITING, (*fence, run_id, owner)).rowcount:  # first: it locks the run's row
        raise _Lost
    if wait.started:
        sql = "UPDATE journal SET waiting = ?, effect = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL"
        execute(sql, (True, row.effect, run_id, comparable(row.seq)))
    else:
        execute(
            "INSERT INTO journal(run_id, seq, digest, ticks, waiting, summary, effect) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, row.seq, row.digest, pack_ticks(row.ticks), True, row.summary, row.effect),
        )
    added = insert_children(execute, wait.children, wait.start, wait.taken)
    execute(_CHECKPOINT, (run_id, *checkpoint_values(point)))
    return added


_STOPPED = (
    "UPDATE runs SET status = ?, state = ?, steps = ?, effects = ?, reason = ?, tail = ?, updated = ?, "
    "owner = NULL, lease_until = NULL, fingerprint = COALESCE(NULLIF(?, ''), fingerprint) "
    "WHERE id = ? AND owner = ?"
)
"""The child stops and lets go of its run, if it still owns it (the fence of the whole end)."""


def _stop_child(execute: Execute, run_id: str, owner: str, stop: ChildStop) -> bool:
    """The statements of :meth:`StoreChildStops.stop_child`, in its transaction."""
    record, done = stop.record, stop.done
    where = (record.status.value, record.state, record.steps, record.effects, record.reason)
    stopped = (*where, pack_ticks(stop.tail), record.updated, record.fingerprint, run_id, owner)
    if not execute(_STOPPED, stopped).rowcount:  # first: it locks the run's row
        raise _Lost
    if done is not None:
        sql = "UPDATE journal SET outcome = ?, at = ? WHERE run_id = ? AND seq = ? AND outcome IS NULL"
        if not execute(sql, (done.outcome, done.at, run_id, comparable(done.seq))).rowcount:
            raise _Lost
    sql = "UPDATE children SET outcome = ? WHERE run_id = ? AND outcome IS NULL"
    wrote = execute(sql, (stop.outcome, run_id)).rowcount > 0
    if wrote and stop.answer is not None:
        take = (owner, stop.take_until) if stop.take_until else None
        answering(execute, stop.answer[0], stop.answer[1], stop.outcome, record.updated, take)
    return wrote


class StoreChildStops(StoreWrites):
    """A parent's wait on its children and a child's end, each in one transaction (both databases)."""

    def wait_on_children(
        self, run_id: str, owner: str, wait: ChildrenWait
    ) -> Result[int, RunBusy | StoreFailure]:
        """A parent's wait on the children it starts, in one transaction (see ``ChildrenWait``); rows new.

        Fenced by ownership: a parent this owner no longer holds writes nothing (RunBusy). Its
        children are queued in the transaction that stores its wait, so none can end before it.
        """
        try:
            return self._change(
                "wait on children", lambda execute: _wait_on(execute, run_id, owner, wait), run_id
            )
        except _Lost:  # raised inside the transaction, so it rolled back
            return Failure(RunBusy(run_id=run_id, owner=LOST))

    def stop_child(self, run_id: str, owner: str, stop: ChildStop) -> Result[bool, RunBusy | StoreFailure]:
        """How child ``run_id`` ended, with its outcome and its parent's answer, in one transaction.

        Whether this wrote the outcome (a child has one outcome: the first written is kept).
        Fenced by ownership: a run this owner no longer holds writes nothing (RunBusy).
        """
        try:
            return self._change("stop child", lambda run: _stop_child(run, run_id, owner, stop), run_id)
        except _Lost:  # raised inside the transaction, so it rolled back
            return Failure(RunBusy(run_id=run_id, owner=LOST))
