"""Where a durable run stopped, stored: finished, failed, waiting, or checkpointed to run on.

:func:`settle_run` is what :class:`~agentsm_fn.durable.running.program.DurableProgram` does each time
the shell's run stops: it stores the run's status (with the last held outcome, in the same
transaction), takes the checkpoint of a pause, and tells the run's family how it ended (a child
its parent; a parent that waits its children: :mod:`agentsm_fn.durable.running.children_inline`).
A parent that stops to wait on children it starts (their rows held by the session:
:attr:`~agentsm_fn.durable.running.session.Session.children`) stores them, their first runs, its
wait, its checkpoint and its stop in one transaction (``ChildStore.wait_on_children``).
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.core.failures import EffectFailed, RunFailed
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.errors import Diverged, DurableError, RunBusy, Stopped
from agentsm_fn.durable.running import _contract
from agentsm_fn.durable.running._loading import release
from agentsm_fn.durable.running.session import Pause, Session
from agentsm_fn.durable.stores.codec import to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildrenWait
from agentsm_fn.durable.stores.protocol.store import Checkpoint, RunRecord, RunStatus
from agentsm_fn.shell.run import RunResult, Shell
from agentsm_fn.teams.values import Children, ChildRun

if TYPE_CHECKING:
    from agentsm_fn.durable.running.program import DurableProgram, StoredRun

__all__ = ["checkpoint", "save_checkpoint", "settle_run", "told"]


def _stored(run_id: str, snapshot: Snapshot[Any, Any]) -> StoredRun[Any, Any]:
    from agentsm_fn.durable.running.program import StoredRun  # noqa: PLC0415  # program builds on this module

    return StoredRun(run_id=run_id, snapshot=snapshot)


def told(session: Session, snapshot: Snapshot[Any, Any]) -> None:
    """A parent that stopped to wait on children it asked for before: settle their group (once all ended)."""
    from agentsm_fn.durable.running.children import children_store, settle  # noqa: PLC0415  # builds on program

    keeps = children_store(session.store)
    pending = snapshot.pending
    if keeps is not None and pending is not None and isinstance(pending.underlying(), ChildRun | Children):
        settle(keeps, session.run_id, session.seq)  # ``seq``: the effect it waits on


def settle_run(
    program: DurableProgram[Any, Any, Any], session: Session, shell: Shell, result: RunResult[Any, Any]
) -> Snapshot[Any, Any] | Result[StoredRun[Any, Any], DurableError]:
    """Store where the run stopped; a snapshot means: checkpointed, run on from it."""
    run_id, store, now = session.run_id, session.store, (program.clock or shell.clock)()
    snapshot = result.unwrap() if isinstance(result, Success) else result.failure().snapshot
    record = RunRecord(
        run_id=run_id,
        machine=program.name,
        fingerprint=program.fingerprint,
        status=RunStatus.FAILED,
        created=now,
        updated=now,
        state=snapshot.state.name,
        steps=snapshot.steps,
        effects=session.seq,
        owner=session.owner,
    )
    tail = tuple(session.buffer)
    held, session.held = session.held, None  # the last outcome: committed with where the run stopped

    def stop(stopped: RunRecord, ticks: tuple[float, ...] = tail) -> Result[None, DurableError]:
        done = store.stop(run_id, stopped, ticks, session.owner, session.create, held)
        session.create = None
        return done

    def end(stopped: RunRecord, reason: str | None) -> Result[None, DurableError]:
        """Stop a run that ended; a child stops with its outcome and its parent's answer, at once."""
        if session.child is None:
            return stop(stopped)
        from agentsm_fn.durable.running._child_ends import stop_child_run  # noqa: PLC0415  # builds on program

        ended = stop_child_run(program, session, snapshot, stopped, reason, held, tail)
        return stop(stopped) if ended is None else ended

    def stop_failed(failed: RunFailed[enum.Enum, object]) -> Result[StoredRun[Any, Any], DurableError]:
        """Store the run as failed; the failure is the store's, if that write failed."""
        stopped = end(attrs.evolve(record, reason=failed.reason.describe()), failed.reason.describe())
        return Failure(
            stopped.failure() if isinstance(stopped, Failure) else Stopped(run_id=run_id, failed=failed)
        )

    error = session.error
    if error is not None:
        if isinstance(error, Diverged):  # found while replaying, before any effect: nothing is held
            error = attrs.evolve(error, step=snapshot.steps + 1)
            release(store, run_id, session.owner, now, RunStatus.FAILED, error.describe())
        elif not isinstance(error, RunBusy):  # a run another process owns is not ours to mark
            stop(attrs.evolve(record, reason=error.describe(), fingerprint=""))
        return Failure(error)
    if isinstance(result, Failure):
        failed = result.failure()
        last = session.last
        keep = None if last is None else _contract.unrouted(last[1])
        if isinstance(failed.reason, EffectFailed) and snapshot.awaiting and keep is not None and last:
            # The machine has no route for this failure: not taken, so not kept (as in memory)
            if held is not None and held.seq == last[0]:  # not committed: its row is still started
                held = None
                if not keep:
                    store.forget(run_id, last[0], keep_started=False, owner=session.owner)
            else:
                store.forget(run_id, last[0], keep_started=keep, owner=session.owner)
        return stop_failed(failed)
    if snapshot.status is Status.FINISHED:
        why = None if program.failure is None else program.failure(snapshot)
        ended = RunStatus.FINISHED if why is None else RunStatus.FAILED
        done = end(attrs.evolve(record, status=ended, reason=why or ""), why)
        return done.map(lambda _: _stored(run_id, snapshot))
    pause, session.pause = session.pause, None
    if held is not None:  # a checkpoint pause: the outcome goes in before the checkpoint that needs it
        flushed = store.commit(run_id, held, session.owner, True)
        if isinstance(flushed, Failure):
            return flushed
    if pause is Pause.WAIT and session.children is not None:
        waiting = attrs.evolve(record, status=RunStatus.WAITING)
        return _wait_on_children(program, session, snapshot, waiting, now + program.lease)
    saved = save_checkpoint(session, snapshot)
    if isinstance(saved, Failure):
        return saved
    if pause is Pause.CHECKPOINT:
        return snapshot
    done = stop(attrs.evolve(record, status=RunStatus.WAITING), ())
    if isinstance(done, Success):
        told(session, snapshot)  # a parent: its children may have ended before the wait
    return done.map(lambda _: _stored(run_id, snapshot))


def _wait_on_children(
    program: DurableProgram[Any, Any, Any],
    session: Session,
    snapshot: Snapshot[Any, Any],
    record: RunRecord,
    lease_until: float,
) -> Result[StoredRun[Any, Any], DurableError]:
    """Store the children the run starts, its wait, checkpoint and stop, in one transaction.

    When this process runs them (``Session.take_child``), the one child of a ``ChildRun`` is
    stored as this process's (RUNNING, until ``lease_until``), to run from its memory in hand.
    """
    deferred, session.children = session.children, None
    assert deferred is not None and deferred.wait is not None  # the caller checked; the wait was held
    rows, start = deferred.rows, deferred.start
    take = session.take_child and len(rows) == 1 and rows[0].index < 0 and len(start) == 1
    if take:
        start = (attrs.evolve(start[0], owner=session.owner, lease_until=lease_until),)
    point = checkpoint(session, snapshot)
    if isinstance(point, Failure):
        return point
    wait = ChildrenWait(
        wait=deferred.wait,
        children=rows,
        start=start,
        started=deferred.started,
        taken=take,
        checkpoint=point.unwrap(),
        record=record,
        create=None if deferred.started else session.create,
    )
    written = deferred.store.wait_on_children(session.run_id, session.owner, wait)
    session.create = None
    if isinstance(written, Failure):
        return written
    session.checkpointed()
    session.checkpoint_bytes = len(point.unwrap().memory) + len(point.unwrap().pending)
    if written.unwrap() < len(rows):  # asked before (an older store's rows): settle the group
        told(session, snapshot)
    elif take:
        from agentsm_fn.durable.running.child_rows import record_of  # noqa: PLC0415  # builds on program

        session.taken_child = (record_of(rows[0], start[0]), deferred.memories[0])
    return Success(_stored(session.run_id, snapshot))


def checkpoint(session: Session, snapshot: Snapshot[Any, Any]) -> Result[Checkpoint, DurableError]:
    """The checkpoint of ``snapshot`` (the run awaiting entry ``session.seq``), encoded."""
    memory, pending = to_bytes(snapshot.memory), to_bytes(snapshot.pending)
    column = f"checkpoint[{session.seq}]"
    if isinstance(memory, Failure):
        return Failure(memory.failure().within(session.run_id, f"{column}.memory"))
    if isinstance(pending, Failure):
        return Failure(pending.failure().within(session.run_id, f"{column}.pending"))
    return Success(
        Checkpoint(
            seq=session.seq,
            state=snapshot.state.name,
            steps=snapshot.steps,
            memory=memory.unwrap(),
            pending=pending.unwrap(),
        )
    )


def save_checkpoint(session: Session, snapshot: Snapshot[Any, Any]) -> Result[None, DurableError]:
    """Take the checkpoint of ``snapshot`` (a pause), fenced by ownership."""
    point = checkpoint(session, snapshot)
    if isinstance(point, Failure):
        return Failure(point.failure())
    saved = session.store.save_checkpoint(session.run_id, point.unwrap(), session.owner)
    if isinstance(saved, Failure):
        return saved
    session.checkpointed()
    session.checkpoint_bytes = len(point.unwrap().memory) + len(point.unwrap().pending)
    return Success(None)
