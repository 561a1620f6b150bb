"""A child run's end, stored in one transaction: its stop, its outcome and its parent's answer.

A run that knows it is a child (its row read when it was loaded, or in hand when its parent
started it here: ``Session.child``) stops through ``ChildStore.stop_child``: where it stopped,
the last held outcome, its :data:`~agentsm_fn.teams.ChildOutcome` (written once) and, for the one
child of a ``ChildRun``, the parent's answer, which makes the parent READY, or, when this process
drives that parent (:mod:`~agentsm_fn.durable.running.children_inline`), takes it for this process
to go on with at once. A fan-out's group then moves on (``children.moved_on``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from returns.result import Failure, Result

from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running.child_programs import ended_outcome, failed_outcome
from agentsm_fn.durable.running.child_rows import encoded
from agentsm_fn.durable.running.children import children_store, moved_on
from agentsm_fn.durable.running.children_inline import driven, handed
from agentsm_fn.durable.running.session import Session
from agentsm_fn.durable.stores.protocol.children import ChildStop
from agentsm_fn.durable.stores.protocol.store import JournalRow, RunRecord

if TYPE_CHECKING:
    from agentsm_fn.durable.running.program import DurableProgram

__all__ = ["stop_child_run"]


def stop_child_run(
    program: DurableProgram[Any, Any, Any],
    session: Session,
    snapshot: Snapshot[Any, Any],
    stopped: RunRecord,
    reason: str | None,
    done: JournalRow | None,
    tail: tuple[float, ...],
) -> Result[None, DurableError] | None:
    """Stop ``session``'s child run with its outcome (``reason``: it failed), in one transaction.

    None: the run is not a child this way can stop (the caller stops it as any run).
    """
    row, keeps = session.child, children_store(session.store)
    if row is None or keeps is None or session.create is not None:
        return None
    run_id = session.run_id
    outcome = (
        ended_outcome(program, run_id, snapshot)
        if reason is None
        else failed_outcome(program.name, run_id, reason)
    )
    single = row.size == 1 and row.index < 0
    take = single and driven(row.parent)
    stop = ChildStop(
        record=stopped,
        tail=tail,
        outcome=encoded(outcome),
        done=done,
        answer=(row.parent, row.seq) if single else None,
        take_until=stopped.updated + program.lease if take else 0.0,
    )
    written = keeps.stop_child(run_id, session.owner, stop)
    if isinstance(written, Failure):
        return Failure(written.failure())
    if written.unwrap() and take:
        handed(row.parent)
    elif written.unwrap():
        moved_on(keeps, row, outcome)
    return written.map(lambda _: None)
