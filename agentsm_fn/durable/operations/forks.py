"""Forks: a new stored run from a run as it was at a step (:func:`fork`), and the runs forked from a run.

:class:`RunForks` is optional for a store (like :class:`~agentsm_fn.durable.stores.protocol.pages.RunPages`):
one that has it answers with one query on an index on ``(parent, created, id)``; for one that
has not, :func:`forks_of` filters ``runs()``. Either way newest first, then by id (what a
run's page lists under it).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Protocol, TypeVar, runtime_checkable

from returns.result import Failure, Result

from agentsm_fn.core.machine import Machine
from agentsm_fn.core.snapshot import Snapshot, Status
from agentsm_fn.durable.errors import DurableError, NoSuchStep, NotResumable, StoreFailure
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore

__all__ = ["RunForks", "fork", "forks_of"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


@runtime_checkable
class RunForks(Protocol):
    """A store that lists a run's forks itself (one indexed query, not every run read)."""

    def forks(self, parent: str) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """The runs whose ``parent`` is ``parent``, newest first (then by id)."""
        ...


def forks_of(store: RunStore, parent: str) -> Result[tuple[RunRecord, ...], StoreFailure]:
    """The runs forked from ``parent``: the store's own query if it has one, else ``runs()`` filtered.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> forks_of(SqliteStore.open(":memory:").unwrap(), "r1").unwrap()
        ()
    """
    if isinstance(store, RunForks):
        return store.forks(parent)
    return store.runs().map(lambda every: tuple(record for record in every if record.parent == parent))


def fork(
    store: RunStore,
    source: Machine[StateT, EventT, MemoryT],
    run_id: str,
    at_step: int,
    into: Durable[StateT, EventT, MemoryT],
    change: Callable[[MemoryT], MemoryT] | None = None,
    new_id: str | None = None,
) -> Result[StoredRun[StateT, MemoryT], DurableError]:
    """Start a new stored run from ``run_id`` as it was after ``at_step`` transitions.

    ``change`` edits the memory first (a fixed prompt, another config); ``into`` is the
    durable machine the fork runs with (the same one, or one with other performers).
    The fork's record names its parent and step; the parent is left as it was.
    """
    found = replay_stored(store, source, run_id, at_step)
    if isinstance(found, Failure):
        return found
    snap = found.unwrap()
    if snap.steps < at_step:
        return Failure(NoSuchStep(run_id=run_id, step=at_step, reaches=snap.steps))
    if snap.status is not Status.READY:
        why = f"it has no step {at_step} to fork from (its journal ends at {snap.steps}, {snap.status.value})"
        return Failure(NotResumable(run_id=run_id, status=snap.status.value, why=why))
    memory = snap.memory if change is None else change(snap.memory)
    start = Snapshot(state=snap.state, memory=memory, steps=snap.steps)
    return into.start_at(store, start, new_id, parent=(run_id, at_step))
