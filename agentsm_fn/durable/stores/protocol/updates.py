"""Runs updated since a cursor, and how many runs the store holds: one look of a watch over a store.

:class:`RunUpdates` is optional for a store (like
:class:`~agentsm_fn.durable.stores.protocol.pages.RunPages`): one that has it answers with one query
on an index on ``(updated, id)``, so a look costs what changed, not what is stored; for one that has
not, :func:`updates_since` filters ``runs()``.
``total`` comes in the same read (both stores keep it in ``meta``, updated by triggers when a run
is inserted or deleted: no ``count(*)`` over the runs), so a watch that knows every run it was
told about learns that one was removed (or that one was written with an ``updated`` older than
its cursor) when the count disagrees, without reading every run.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStore

__all__ = ["RunUpdates", "Updates", "updates_since"]


@attrs.frozen(kw_only=True)
class Updates:
    """The runs updated after a cursor (in order of ``(updated, run_id)``), and how many runs there are."""

    records: tuple[RunRecord, ...]
    total: int


@runtime_checkable
class RunUpdates(Protocol):
    """A store that answers :meth:`updated_since` itself (one indexed query, not every run read)."""

    def updated_since(self, after: tuple[float, str], limit: int) -> Result[Updates, StoreFailure]:
        """At most ``limit`` runs with ``(updated, run_id)`` after ``after``, oldest first; the count."""
        ...


def updates_since(store: RunStore, after: tuple[float, str], limit: int) -> Result[Updates, StoreFailure]:
    """The runs updated after ``after`` (``(updated, run_id)``): the store's own query if it has one.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> updates_since(SqliteStore.open(":memory:").unwrap(), (0.0, ""), 100).unwrap()
        Updates(records=(), total=0)
    """
    if isinstance(store, RunUpdates):
        return store.updated_since(after, limit)
    every = store.runs()
    if isinstance(every, Failure):
        return every
    later = sorted(
        (record for record in every.unwrap() if (record.updated, record.run_id) > after),
        key=lambda record: (record.updated, record.run_id),
    )
    return Success(Updates(records=tuple(later[: max(0, limit)]), total=len(every.unwrap())))
