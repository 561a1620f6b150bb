"""Runs a page at a time: filtered by status and machine, newest first, continued after a cursor.

:class:`RunPages` is optional for a store (like ``TraceContexts``): one that has it answers a
page with one query (SQLite: an index on ``(created, id)``); for one that has not,
:func:`runs_page` filters ``runs()`` itself. Either way a page holds the runs just older than
the last run of the previous page (its ``after``), so a run created meanwhile never shifts
the pages a client is walking.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import StoreFailure
from agentsm_fn.durable.stores.protocol.store import RunRecord, RunStatus, RunStore

__all__ = ["RunPages", "RunQuery", "runs_page"]


@attrs.frozen(kw_only=True)
class RunQuery:
    """Which runs a page holds: the filters, the page size, and where the previous page ended.

    ``after`` is ``(created, run_id)`` of the previous page's last run (None: the first page).
    """

    status: RunStatus | None = None
    machine: str | None = None
    limit: int = 50
    after: tuple[float, str] | None = None

    def admits(self, record: RunRecord) -> bool:
        """True if ``record`` passes the filters and comes after the cursor (newest first, then by id).

        Example:
            >>> record = RunRecord(run_id="r1", machine="m:M", fingerprint="f",
            ...                    status=RunStatus.WAITING, created=5.0, updated=5.0)
            >>> RunQuery(status=RunStatus.WAITING, after=(6.0, "r0")).admits(record)
            True
        """
        if self.status is not None and record.status is not self.status:
            return False
        if self.machine is not None and record.machine != self.machine:
            return False
        if self.after is None:
            return True
        created, run_id = self.after
        return record.created < created or (record.created == created and record.run_id > run_id)


@runtime_checkable
class RunPages(Protocol):
    """A store that answers a page of runs itself (one query, not every run read)."""

    def page(self, query: RunQuery) -> Result[tuple[RunRecord, ...], StoreFailure]:
        """The runs ``query`` admits, newest first (then by id), at most ``query.limit``."""
        ...


def runs_page(store: RunStore, query: RunQuery) -> Result[tuple[RunRecord, ...], StoreFailure]:
    """One page of runs: the store's own query if it has one, else ``runs()`` filtered.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> runs_page(SqliteStore.open(":memory:").unwrap(), RunQuery(limit=10)).unwrap()
        ()
    """
    if isinstance(store, RunPages):
        return store.page(query)
    every = store.runs()
    if isinstance(every, Failure):
        return every
    admitted = (record for record in every.unwrap() if query.admits(record))
    return Success(tuple(record for _, record in zip(range(query.limit), admitted, strict=False)))
