"""Child runs in a store: started by the parent's effect, answering the parent when they end.

A durable parent's :class:`~agentsm_fn.teams.ChildRun` or :class:`~agentsm_fn.teams.Children`
effect is performed here (:func:`store_children`): its children's rows are stored (idempotent:
ids derive from the parent's run id and the effect's seq: ``run_ids.child_run_id``),
the first ``limit`` are queued as READY runs, and the parent suspends (WAITING on that effect,
holding no worker). When a child run ends (:func:`child_ended`, called where the run is
stopped), its outcome is stored once (a conditional write); then :func:`settle` moves its
group on: child ``i + limit`` of a fan-out is queued as child ``i`` ends; under ``CANCEL_REST``
a failure cancels the rest; once every child ended the parent is answered (one conditional
write: ``RunStore.answer`` refuses a second) and made READY. A parent also settles its group
right after it stopped to wait (a child that ended before the wait was stored is seen there),
and ``recover`` settles every waiting parent, so no crash leaves a group half done.

With plain ``Durable.start``/``resume`` (no workers), the queued children run in this process
and the parent goes on (:mod:`agentsm_fn.durable.running.children_inline`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from returns.result import Failure

from agentsm_fn.core import SUSPEND
from agentsm_fn.durable.child_errors import ChildOutcomeCorrupt
from agentsm_fn.durable.running.child_programs import AnyProgram, ended_outcome, failed_outcome, load_program
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.running.run_ids import child_run_id
from agentsm_fn.durable.stores.codec import from_bytes, to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildRecord, ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import NewRun, RunRecord, RunStatus, RunStore
from agentsm_fn.shell.keys import effect_key
from agentsm_fn.shell.performers import Performers
from agentsm_fn.teams.values import (
    ChildCancelled,
    ChildFailed,
    ChildFinished,
    ChildOutcome,
    Children,
    ChildRun,
    Gathered,
)

__all__ = [
    "cancel_tree",
    "child_ended",
    "children_store",
    "decoded",
    "settle",
    "settle_waiting",
    "store_children",
    "with_children",
]

_KNOWN: dict[type, bool] = {}


def children_store(store: RunStore) -> ChildStore | None:
    """``store`` if it keeps child runs, else None."""
    kind = type(store)
    keeps = _KNOWN.get(kind)
    if keeps is None:
        keeps = _KNOWN[kind] = isinstance(store, ChildStore)
    return store if keeps else None  # type: ignore[return-value]  # checked by the isinstance above


def decoded(record: ChildRecord) -> ChildOutcome | None:
    """The stored outcome of a child (None: not ended); a corrupt one is a failed child saying so."""
    if record.outcome is None:
        return None
    found = from_bytes(record.outcome, object)
    value = found.value_or(None)
    if isinstance(value, ChildFinished | ChildFailed | ChildCancelled):
        return value
    detail = found.failure().describe() if isinstance(found, Failure) else f"a {type(value).__name__}"
    return ChildFailed(
        run_id=record.run_id,
        program=record.program,
        reason=ChildOutcomeCorrupt(run_id=record.run_id, detail=detail).describe(),
    )


def _encoded(outcome: object) -> bytes:
    return to_bytes(outcome).unwrap()  # child outcomes are attrs values of plain fields: always encodable


def store_children(store: ChildStore) -> Performers:
    """The performers of child-run effects for a durable parent in ``store`` (see the module docstring)."""

    def one(effect: ChildRun) -> object:
        key = effect_key()
        parent, seq = ("", 0) if key is None else (key.run_id, key.seq)
        run_id = effect.run_id or child_run_id(parent, seq)
        return _request(store, parent, seq, effect.program, ((run_id, effect.memory),), 1, False, True)

    def many(effect: Children) -> object:
        key = effect_key()
        parent, seq = ("", 0) if key is None else (key.run_id, key.seq)
        ids = tuple((child_run_id(parent, seq, i), m) for i, m in enumerate(effect.memories))
        return _request(
            store, parent, seq, effect.program, ids, effect.limit, effect.policy.name == "CANCEL_REST", False
        )

    return Performers().on(ChildRun, one).on(Children, many)


def _request(
    store: ChildStore,
    parent: str,
    seq: int,
    program: str,
    children: tuple[tuple[str, object], ...],
    limit: int,
    cancel_rest: bool,
    single: bool,
) -> object:
    loaded = load_program(program, {})
    if isinstance(loaded, Failure):
        failed = [failed_outcome(program, run_id, loaded.failure().describe()) for run_id, _ in children]
        return failed[0] if single else Gathered(outcomes=tuple(failed))
    if not children:
        return Gathered()
    rows: list[NewChild] = []
    for index, (run_id, memory) in enumerate(children):
        encoded = to_bytes(memory)
        if isinstance(encoded, Failure):
            raise ValueError(f"child {run_id}'s start memory: {encoded.failure().describe()}")
        rows.append(
            NewChild(
                run_id=run_id,
                parent=parent,
                seq=seq,
                index=-1 if single else index,
                size=len(children),
                program=program,
                memory=encoded.unwrap(),
                limit=limit,
                cancel_rest=cancel_rest,
            )
        )
    store.add_children(tuple(rows)).alt(_raise)
    group = store.children_of(parent, seq).alt(_raise).unwrap()
    outcome = _advance(store, group)
    return SUSPEND if outcome is None else outcome


def _raise(error: object) -> object:
    raise RuntimeError(getattr(error, "describe", lambda: str(error))())


def _advance(store: ChildStore, group: tuple[ChildRecord, ...]) -> ChildOutcome | Gathered | None:
    """Start the children that may start; cancel the rest after a failure (``CANCEL_REST``).

    The parent's outcome once every child ended, else None.
    """
    outcomes = [decoded(record) or _recorded(store, record) for record in group]
    if any(record.cancel_rest for record in group) and any(
        o is not None and not isinstance(o, ChildFinished) for o in outcomes
    ):
        for at, record in enumerate(group):
            if outcomes[at] is None:
                cancel_tree(store, record.run_id, record.program, time.time())
                outcomes[at] = ChildCancelled(run_id=record.run_id, program=record.program)
    programs: dict[str, AnyProgram] = {}
    for at, record in enumerate(group):
        earlier = at - record.limit
        if record.started or outcomes[at] is not None or (earlier >= 0 and outcomes[earlier] is None):
            continue
        _start(store, record, programs)
    if any(o is None for o in outcomes):
        return None
    ended = tuple(o for o in outcomes if o is not None)
    return ended[0] if group and group[0].index < 0 else Gathered(outcomes=ended)


_ENDED = (RunStatus.FINISHED, RunStatus.FAILED, RunStatus.CANCELLED)


def _recorded(store: ChildStore, record: ChildRecord) -> ChildOutcome | None:
    """The outcome of a child whose run ended but whose end was not recorded (its process died between)."""
    if record.status not in _ENDED:
        return None
    if record.status is RunStatus.CANCELLED:
        outcome: ChildOutcome = ChildCancelled(run_id=record.run_id, program=record.program)
    elif record.status is RunStatus.FAILED:
        reason = store.get(record.run_id).map(lambda r: r.reason).value_or("it failed")
        outcome = failed_outcome(record.program, record.run_id, reason)
    else:
        loaded = load_program(record.program, {})
        if isinstance(loaded, Failure):
            outcome = failed_outcome(record.program, record.run_id, loaded.failure().describe())
        else:
            program = loaded.unwrap()
            snapshot = replay_stored(store, program.machine, record.run_id)
            if isinstance(snapshot, Failure):
                outcome = failed_outcome(record.program, record.run_id, snapshot.failure().describe())
            else:
                outcome = ended_outcome(program, record.run_id, snapshot.unwrap())
    store.end_child(record.run_id, _encoded(outcome))
    return outcome


def _start(store: ChildStore, record: ChildRecord, programs: dict[str, AnyProgram]) -> None:
    program = programs.get(record.program)
    if program is None:
        loaded = load_program(record.program, {})
        if isinstance(loaded, Failure):
            outcome = failed_outcome(record.program, record.run_id, loaded.failure().describe())
            store.end_child(record.run_id, _encoded(outcome))
            return
        program = programs[record.program] = loaded.unwrap()
    now = time.time()
    new = NewRun(
        run_id=record.run_id,
        machine=program.name,
        fingerprint=program.fingerprint,
        memory=record.memory,
        created=now,
        owner="",
        lease_until=0.0,
    )
    if isinstance(store.enqueue(new), Failure) and isinstance(store.get(record.run_id), Failure):
        store.enqueue(new).alt(_raise)  # not a second start of the same child: try once more, or fail


def settle(store: ChildStore, parent: str, seq: int) -> bool:
    """Move the group of ``parent``'s effect ``seq`` on; answer the parent once every child ended (True)."""
    found = store.children_of(parent, seq)
    if isinstance(found, Failure) or not found.unwrap():
        return False
    outcome = _advance(store, found.unwrap())
    if outcome is None:
        return False
    store.answer(parent, seq, _encoded(outcome), time.time())  # a second answer is refused: exactly once
    return True


def child_ended(store: RunStore, run_id: str, outcome: ChildOutcome) -> None:
    """Record how run ``run_id`` ended if it is a child (once), and move its group on."""
    keeps = children_store(store)
    if keeps is None:
        return
    found = keeps.child(run_id).value_or(None)
    if found is None or found.ended:
        return
    keeps.end_child(run_id, _encoded(outcome))
    settle(keeps, found.parent, found.seq)


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
                record.run_id, _encoded(ChildCancelled(run_id=record.run_id, program=record.program))
            )
    if cancelled and cancelled[0] == run_id:
        child_ended(store, run_id, ChildCancelled(run_id=run_id, program=program))
    return cancelled


def with_children(store: RunStore, performers: Performers) -> Performers:
    """``performers`` and, in a store that keeps child runs, :func:`store_children` (unless given)."""
    keeps = children_store(store)
    if keeps is None or ChildRun in performers.sync or Children in performers.sync:
        return performers
    return store_children(keeps).merge(performers)


def settle_waiting(store: RunStore, records: Iterable[RunRecord]) -> int:
    """Settle the groups of the WAITING runs among ``records`` (what a crash left half done).

    How many parents were answered.
    """
    keeps = children_store(store)
    if keeps is None:
        return 0
    return sum(settle(keeps, r.run_id, r.effects) for r in records if r.status is RunStatus.WAITING)
