"""The write path before one transaction per effect, to measure what it saves: each outcome alone.

A store of either kind whose ``start_effect`` and ``stop`` first commit the held outcome
(``done``) in a transaction of its own, as the runner did before it handed that outcome to the
next write: a run whose effects are not retry-safe then costs two transactions per effect again.
"""

from __future__ import annotations

from returns.result import Failure, Result, Success

from agentsm_fn.durable import JournalRow, NewRun, RunRecord, SqliteStore
from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.postgres import PostgresStore


class TwoPerEffect:
    """Put before a store class in the bases: its held outcomes are committed alone, first."""

    def start_effect(
        self,
        run_id: str,
        row: JournalRow,
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        first = self._alone(run_id, owner, done)
        if isinstance(first, Failure):
            return first
        return super().start_effect(run_id, row, owner, create)  # type: ignore[misc, no-any-return]  # the store's, next in the MRO

    def stop(
        self,
        run_id: str,
        record: RunRecord,
        tail: tuple[float, ...],
        owner: str,
        create: NewRun | None = None,
        done: JournalRow | None = None,
    ) -> Result[None, RunBusy | StoreFailure]:
        first = self._alone(run_id, owner, done)
        if isinstance(first, Failure):
            return first
        return super().stop(run_id, record, tail, owner, create)  # type: ignore[misc, no-any-return]  # the store's, next in the MRO

    def _alone(
        self, run_id: str, owner: str, done: JournalRow | None
    ) -> Result[None, RunBusy | StoreFailure]:
        if done is None:
            return Success(None)
        return super().commit(run_id, done, owner, True)  # type: ignore[misc, no-any-return]  # the store's, next in the MRO


class SqliteTwoPerEffect(TwoPerEffect, SqliteStore):
    """:class:`SqliteStore`, each outcome in a transaction of its own."""


class PostgresTwoPerEffect(TwoPerEffect, PostgresStore):
    """:class:`PostgresStore`, each outcome in a transaction of its own."""
