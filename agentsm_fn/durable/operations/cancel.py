"""Cancelling a stored run: it is never resumed, and its unfinished children are cancelled with it.

:func:`cancel` marks the run CANCELLED and lets go of it (a process still running it is refused
at its next write and stops there), then cancels, recursively, every child it started that has
not ended, and ends the children it had not started yet as cancelled. A cancelled child gives
its parent :class:`~agentsm_fn.teams.ChildCancelled` (its group goes on, or the parent is
answered), so a child outlives nothing it should not.
"""

from __future__ import annotations

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import RunNotFound, StoreFailure
from agentsm_fn.durable.running.children import cancel_tree, children_store
from agentsm_fn.durable.stores.protocol.children import ChildRecord
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.shell.clock import Clock, system_clock

__all__ = ["cancel", "stored_children"]


def cancel(
    store: RunStore, run_id: str, clock: Clock = system_clock
) -> Result[tuple[str, ...], RunNotFound | StoreFailure]:
    """Cancel run ``run_id`` and its unfinished children, recursively; the ids of the runs cancelled.

    A run that already ended (finished, or cancelled) is left as it is, and so are its children.

    Example:
        >>> from agentsm_fn.durable import NewRun, SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> store.enqueue(NewRun(run_id="r1", machine="app:M", fingerprint="f", memory=b"",
        ...                      created=0.0, owner="", lease_until=0.0)).unwrap()
        >>> cancel(store, "r1").unwrap(), store.get("r1").unwrap().status.value
        (('r1',), 'cancelled')
        >>> cancel(store, "r1").unwrap(), cancel(store, "r9").failure().describe()
        ((), 'no stored run r9')
        >>> store.close()
    """
    found = store.get(run_id)
    if isinstance(found, Failure):
        return found
    keeps = children_store(store)
    if keeps is None:
        return Failure(
            StoreFailure(operation="cancel run", detail="this store keeps no child runs", run_id=run_id)
        )
    return Success(tuple(cancel_tree(keeps, run_id, found.unwrap().machine, clock())))


def stored_children(store: RunStore, run_id: str) -> Result[tuple[ChildRecord, ...], StoreFailure]:
    """The children run ``run_id`` started (its child rows, by effect and index), for views and tools.

    Example:
        >>> from agentsm_fn.durable import SqliteStore
        >>> store = SqliteStore.open(":memory:").unwrap()
        >>> stored_children(store, "r1").unwrap()
        ()
        >>> store.close()
    """
    keeps = children_store(store)
    if keeps is None:
        return Success(())
    return keeps.children_of(run_id)
