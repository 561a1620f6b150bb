"""A durable parent's request for child runs: its children's rows, held to be stored with its wait.

A parent's :class:`~agentsm_fn.teams.ChildRun` or :class:`~agentsm_fn.teams.Children` effect is
performed here (:func:`store_children`): its children's rows (idempotent: ids derive from the
parent's run id and the effect's seq: ``run_ids.child_run_id``) and the runs of the first
``limit`` are handed to the parent's session, and the parent suspends. The session stores them
with the parent's waiting entry, its checkpoint and its stop, in one transaction
(``ChildStore.wait_on_children``): the parent is WAITING on that effect, holding no worker, and
no child can end before its wait is stored. How children end and answer their parent is
:mod:`agentsm_fn.durable.running.children`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from returns.result import Failure

from agentsm_fn.core import SUSPEND
from agentsm_fn.durable.running._tracing import Nesting
from agentsm_fn.durable.running.child_programs import failed_outcome, load_program, start_memory
from agentsm_fn.durable.running.child_rows import queued_run
from agentsm_fn.durable.running.children import children_store
from agentsm_fn.durable.running.run_ids import child_run_id
from agentsm_fn.durable.stores.codec import to_bytes
from agentsm_fn.durable.stores.protocol.children import ChildStore, NewChild
from agentsm_fn.durable.stores.protocol.store import NewRun, RunStore, TraceContexts
from agentsm_fn.shell.keys import effect_key
from agentsm_fn.shell.performers import Performers
from agentsm_fn.teams.values import Children, ChildRun, Gathered

__all__ = ["Hold", "store_children", "with_children"]

Hold = Callable[[ChildStore, tuple[NewChild, ...], tuple[NewRun, ...], tuple[object, ...]], None]
"""Where a parent's session holds the children its effect starts (rows, first runs, start memories)."""


def store_children(store: ChildStore, hold: Hold, nest: Nesting | None = None) -> Performers:
    """The performers of child-run effects for a durable parent in ``store`` (see the module docstring).

    ``hold`` is the parent's session's: the rows are handed to it, to be stored with the wait.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> sorted(kind.__name__ for kind in store_children(store, lambda *held: None).sync)
        ['ChildRun', 'Children']
        >>> store.close()
    """

    def one(effect: ChildRun) -> object:
        key = effect_key()
        parent, seq = ("", 0) if key is None else (key.run_id, key.seq)
        run_id = effect.run_id or child_run_id(parent, seq)
        _nest(store, nest, (run_id,))
        return _request(store, parent, seq, effect.program, ((run_id, effect.memory),), 1, False, True, hold)

    def many(effect: Children) -> object:
        key = effect_key()
        parent, seq = ("", 0) if key is None else (key.run_id, key.seq)
        ids = tuple((child_run_id(parent, seq, i), m) for i, m in enumerate(effect.memories))
        _nest(store, nest, tuple(run_id for run_id, _ in ids))
        cancel_rest = effect.policy.name == "CANCEL_REST"
        return _request(store, parent, seq, effect.program, ids, effect.limit, cancel_rest, False, hold)

    return Performers().on(ChildRun, one).on(Children, many)


def _nest(store: ChildStore, nest: Nesting | None, run_ids: tuple[str, ...]) -> None:
    """Save the trace context the children nest under as theirs (advisory; the first saved is kept)."""
    if nest is None or not isinstance(store, TraceContexts):
        return
    found = nest()
    for run_id in run_ids if found else ():
        store.save_trace_context(run_id, found)  # a failure leaves that child's spans unnested


def _request(
    store: ChildStore,
    parent: str,
    seq: int,
    program: str,
    children: tuple[tuple[str, object], ...],
    limit: int,
    cancel_rest: bool,
    single: bool,
    hold: Hold,
) -> object:
    loaded = load_program(program, {})
    starts = [] if isinstance(loaded, Failure) else [start_memory(loaded.unwrap(), m) for _, m in children]
    why = loaded.failure().describe() if isinstance(loaded, Failure) else None
    why = next((start.failure() for start in starts if isinstance(start, Failure)), why)
    if why is not None:
        failed = [failed_outcome(program, run_id, why) for run_id, _ in children]
        return failed[0] if single else Gathered(outcomes=tuple(failed))
    if not children:
        return Gathered()
    rows: list[NewChild] = []
    for index, ((run_id, _), start) in enumerate(zip(children, starts, strict=True)):
        encoded = to_bytes(start.unwrap())
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
    program_, now = loaded.unwrap(), time.time()
    first = tuple(queued_run(program_, row, now) for row in rows[:limit])
    hold(store, tuple(rows), first, tuple(start.unwrap() for start in starts))
    return SUSPEND


def with_children(
    store: RunStore, performers: Performers, hold: Hold, nest: Nesting | None = None
) -> Performers:
    """``performers`` and, in a store that keeps child runs, :func:`store_children` (unless given).

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> ChildRun in with_children(store, Performers(), lambda *held: None).sync
        True
        >>> store.close()
    """
    keeps = children_store(store)
    if keeps is None or ChildRun in performers.sync or Children in performers.sync:
        return performers
    return store_children(keeps, hold, nest).merge(performers)
