"""The runs forked from a run: what a run's page lists under it.

:class:`RunForks` is optional for a store (like :class:`~agentsm_fn.durable.pages.RunPages`):
one that has it answers with one query on an index on ``(parent, created, id)``; for one that
has not, :func:`forks_of` filters ``runs()``. Either way newest first, then by id.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from returns.result import Result

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.store import RunRecord, RunStore

__all__ = ["RunForks", "forks_of"]


@runtime_checkable
class RunForks(Protocol):
    """A store that lists a run's forks itself (one indexed query, not every run read)."""

    def forks(self, parent: str) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """The runs whose ``parent`` is ``parent``, newest first (then by id)."""
        ...


def forks_of(store: RunStore, parent: str) -> Result[tuple[RunRecord, ...], StoreFailure]:
    """The runs forked from ``parent``: the store's own query if it has one, else ``runs()`` filtered.

    Example:
        >>> from agentsm_fn.durable.sqlite import SqliteStore
        >>> forks_of(SqliteStore.open(":memory:").unwrap(), "r1").unwrap()
        ()
    """
    if isinstance(store, RunForks):
        return store.forks(parent)
    return store.runs().map(lambda every: tuple(record for record in every if record.parent == parent))
