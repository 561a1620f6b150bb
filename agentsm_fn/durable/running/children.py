"""Child runs in a store: how a child's end moves its group on and answers its parent, once.

A parent's request stores its children with its wait (:mod:`agentsm_fn.durable.running.child_requests`).
When a child run ends (:func:`child_ended`, called where the run is stopped), its outcome is
stored once (a conditional write); then :func:`settle` moves its group on: as a fan-out's
child ends, the first child still waiting (lowest index) is queued in its place; under
``CANCEL_REST`` a failure cancels the rest; once every child ended the parent is answered
(one conditional write: ``RunStore.answer`` refuses a second) and made READY. A parent that
finds its group stored already (asked again) settles it right after it stopped to wait, and
``recover`` settles every waiting parent (:func:`settle_waiting`), so no crash leaves a group
half done. :func:`cancel_tree` cancels a run and its unfinished children.

With plain ``Durable.start``/``resume`` (no workers), the queued children run in this process
and the parent goes on (:mod:`agentsm_fn.durable.running.children_inline`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from returns.result import Failure, Success

from agentsm_fn.durable.running.child_programs import AnyProgram, failed_outcome, load_program
from agentsm_fn.durable.running.child_rows import decoded, encoded, lost, queued_run, recorded
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore
from agentsm_fn.teams.values import ChildCancelled, ChildFinished, ChildOutcome, Gathered

__all__ = [
    "cancel_tree",
    "child_ended",
    "child_row",
    "children_store",
    "decoded",
    "moved_on",
    "settle",
    "settle_waiting",
]

_KNOWN: dict[type, bool] = {}


def children_store(store: RunStore) -> ChildStore | None:
    """``store`` if it keeps child runs, else None."""
    kind = type(store)
    keeps = _KNOWN.get(kind)
    if keeps is None:
        keeps = _KNOWN[kind] = isinstance(store, ChildStore)
    return store if keeps else None  # type: ignore[return-value]  # checked by the isinstance above


def _advance(store: ChildStore, group: tuple[ChildRecord, ...]) -> ChildOutcome | Gathered | None:
    """Start the children that may start; cancel the rest after a failure (``CANCEL_REST``).

    The parent's outcome once every child ended, else None. Outcomes are decoded only when they
    are needed (a policy to apply, the parent's answer): a child's end reads its whole group.
    """
    known: list[ChildOutcome | None] = [None if r.ended else recorded(store, r) for r in group]
    ended = [r.ended or known[at] is not None for at, r in enumerate(group)]
    if any(r.cancel_rest for r in group):
        known = [known[at] or decoded(r) for at, r in enumerate(group)]
        if any(o is not None and not isinstance(o, ChildFinished) for o in known):
            for at, record in enumerate(group):
                if not ended[at]:
                    cancel_tree(store, record.run_id, record.program, time.time())
                    known[at], ended[at] = ChildCancelled(run_id=record.run_id, program=record.program), True
    programs: dict[str, AnyProgram] = {}
    running = sum(1 for at, record in enumerate(group) if record.started and not ended[at])
    for at, record in enumerate(group):  # the first waiting ones, up to the free places
        if running >= record.limit:
            break
        if not record.started and not ended[at] and _start(store, record, programs):
            running += 1
    if not all(ended):
        return None
    outcomes = tuple(known[at] or decoded(r) or lost(r) for at, r in enumerate(group))
    return outcomes[0] if group and group[0].index < 0 else Gathered(outcomes=outcomes)


def _start(store: ChildStore, record: ChildRecord, programs: dict[str, AnyProgram]) -> bool:
    """Queue the child's run; whether this call started it (not: another did, or its program is unknown)."""
    program = programs.get(record.program)
    if program is None:
        loaded = load_program(record.program, {})
        if isinstance(loaded, Failure):
            outcome = failed_outcome(record.program, record.run_id, loaded.failure().describe())
            store.end_child(record.run_id, encoded(outcome))
            return False
        program = programs[record.program] = loaded.unwrap()
    new = queued_run(program, record, time.time())
    if isinstance(store.enqueue(new), Success):
        return True
    if isinstance(store.get(record.run_id), Success):
        return False  # another process started it
    store.enqueue(new).alt(_raise)  # not a second start of the same child: try once more, or fail
    return True


def _raise(error: object) -> object:
    raise RuntimeError(getattr(error, "describe", lambda: str(error))())


def settle(store: ChildStore, parent: str, seq: int) -> bool:
    """Move the group of ``parent``'s effect ``seq`` on; answer the parent once every child ended (True)."""
    found = store.children_of(parent, seq)
    if isinstance(found, Failure) or not found.unwrap():
        return False
    outcome = _advance(store, found.unwrap())
    if outcome is None:
        return False
    store.answer(parent, seq, encoded(outcome), time.time())  # a second answer is refused: exactly once
    return True


def child_row(store: RunStore, run_id: str) -> ChildRecord | None:
    """Run ``run_id``'s row as a child, or None (not a child, or a store keeping no child runs)."""
    keeps = children_store(store)
    found = None if keeps is None else keeps.child(run_id)
    return None if found is None or isinstance(found, Failure) else found.unwrap()


def child_ended(store: RunStore, run_id: str, outcome: ChildOutcome) -> None:
    """Record how run ``run_id`` ended if it is a child (once), and move its group on."""
    keeps = children_store(store)
    if keeps is None:
        return
    found = keeps.child(run_id).value_or(None)
    if found is None or found.ended:
        return
    single = found.size == 1 and found.index < 0  # the one child of a ChildRun: its outcome is the answer
    keeps.end_child(run_id, encoded(outcome), (found.parent, found.seq, time.time()) if single else None)
    moved_on(keeps, found, outcome)


def moved_on(store: ChildStore, ended: ChildRecord, outcome: ChildOutcome) -> None:
    """A child's outcome was stored: move its group on (the one child of a ``ChildRun`` answered already)."""
    if ended.size == 1 and ended.index < 0:
        return
    if ended.cancel_rest and not isinstance(outcome, ChildFinished):
        settle(store, ended.parent, ended.seq)  # the policy reads the whole group
    else:
        _next(store, ended)


def _next(store: ChildStore, ended: ChildRecord) -> None:
    """A fan-out's child ended: start the first one waiting; answer the parent if it was the last.

    A few rows read, not the group (a fan-out of N children reads N rows once, to gather): each
    child ends after its own outcome is stored, so the last of them to count sees none unended.
    Each end starts at most one child, so no more than ``limit`` run at once, and as many as that
    while any wait, whatever order they end in. A child another end took at the same moment is
    passed over for the next.
    """
    programs: dict[str, AnyProgram] = {}
    for _ in range(ended.size):
        waiting = store.first_unstarted(ended.parent, ended.seq, ended.index).value_or(None)
        if waiting is None or _start(store, waiting, programs):
            break
    if store.unended(ended.parent, ended.seq).value_or(1) == 0:
        settle(store, ended.parent, ended.seq)


def cancel_tree(store: ChildStore, run_id: str, program: str, now: float) -> list[str]:
    """Cancel run ``run_id`` if unfinished, and its unfinished children, recursively; the ids cancelled."""
    cancelled: list[str] = []
    if store.cancel_run(run_id, now).value_or(False):
        cancelled.append(run_id)
    for record in store.children_of(run_id).value_or(()):
        if record.ended:
            continue
        if record.started:
            cancelled.extend(cancel_tree(store, record.run_id, record.program, now))
        else:
            store.end_child(
                record.run_id, encoded(ChildCancelled(run_id=record.run_id, program=record.program))
            )
    if cancelled and cancelled[0] == run_id:
        child_ended(store, run_id, ChildCancelled(run_id=run_id, program=program))
    return cancelled


def settle_waiting(store: RunStore, records: Iterable[RunRecord]) -> int:
    """Settle the groups of the WAITING runs among ``records`` (what a crash left half done).

    How many parents were answered.
    """
    keeps = children_store(store)
    if keeps is None:
        return 0
    return sum(settle(keeps, r.run_id, r.effects) for r in records if r.status is RunStatus.WAITING)
