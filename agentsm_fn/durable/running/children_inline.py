"""Child runs with no workers: the children a durable parent waits on run here, then the parent goes on.

``Durable.start`` and ``Durable.resume`` (the sync calls; a worker's ``aresume`` leaves children to
the workers) end with :func:`run_inline`: a parent that stopped to wait on its children (stored
READY by :mod:`agentsm_fn.durable.running.children`) runs each READY child here, one after the
other (each child's end queues the next of a fan-out, and answers the parent once all ended),
then resumes the parent, so a plain user gets the parent's end from one call. A child another
process holds is left to it (the parent is then returned WAITING). :func:`after_stop` is what a
run that stopped does for its family: a child tells its parent how it ended; a parent that
waits settles its group (a child that ended before the wait was stored is seen here).
"""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.child_errors import ChildMachineChanged
from agentsm_fn.durable.errors import DurableError, MachineChanged
from agentsm_fn.durable.running.child_programs import AnyProgram, ended_outcome, failed_outcome, load_program
from agentsm_fn.durable.running.children import child_ended, children_store, settle
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore
from agentsm_fn.durable.stores.protocol.store import RunStatus, RunStore
from agentsm_fn.teams.values import Children, ChildRun

__all__ = ["after_stop", "run_inline"]


def run_inline(
    program: AnyProgram, store: RunStore, result: Result[StoredRun[Any, Any], DurableError]
) -> Result[StoredRun[Any, Any], DurableError]:
    """With no workers: run the children a parent waits on here, then the parent (see the module)."""
    keeps = children_store(store)
    stopped = result.value_or(None)
    if keeps is None or stopped is None or stopped.snapshot.pending is None:
        return result
    if not isinstance(stopped.snapshot.pending.underlying(), ChildRun | Children):
        return result
    run_id, tried = stopped.run_id, set[str]()
    while True:
        record = keeps.get(run_id).value_or(None)
        if record is None:
            return result
        if record.status is RunStatus.READY:  # answered: go on
            return program.resume(store, run_id)
        if record.status is not RunStatus.WAITING:
            return result
        group = keeps.children_of(run_id, record.effects).value_or(())
        ready = [r for r in group if r.status is RunStatus.READY and not r.ended and r.run_id not in tried]
        if not ready:
            return result
        for child in ready:
            tried.add(child.run_id)
            _run_child(keeps, child)


def _run_child(store: ChildStore, child: ChildRecord) -> None:
    loaded = load_program(child.program, {})
    if isinstance(loaded, Failure):
        child_ended(
            store, child.run_id, failed_outcome(child.program, child.run_id, loaded.failure().describe())
        )
        return
    ran = loaded.unwrap().resume(store, child.run_id)
    if isinstance(ran, Failure) and isinstance(ran.failure(), MachineChanged):
        changed = ran.failure()
        assert isinstance(changed, MachineChanged)
        why = ChildMachineChanged(
            run_id=child.run_id, program=child.program, stored=changed.stored, current=changed.current
        )
        child_ended(store, child.run_id, failed_outcome(child.program, child.run_id, why.describe()))


def after_stop(
    program: AnyProgram,
    store: RunStore,
    run_id: str,
    snapshot: Snapshot[Any, Any],
    reason: str | None,
    seq: int,
) -> None:
    """Where a run stopped: a child that ended tells its parent; a parent that waits settles its children."""
    keeps = children_store(store)
    if keeps is None:
        return
    if snapshot.finished or reason is not None:
        outcome = (
            ended_outcome(program, run_id, snapshot)
            if reason is None
            else failed_outcome(program.name, run_id, reason)
        )
        child_ended(keeps, run_id, outcome)
    elif snapshot.pending is not None and isinstance(snapshot.pending.underlying(), ChildRun | Children):
        settle(keeps, run_id, seq)  # ``seq``: the effect it waits on
