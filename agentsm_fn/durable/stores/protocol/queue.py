"""The queue of a store: runs stored READY without running, claimed by workers one at a time.

:meth:`~agentsm_fn.durable.running.durable.Durable.enqueue` stores a run as READY; a worker
(:mod:`agentsm_fn.durable.operations.worker`, ``agentsm-runs worker``) claims READY runs and orphaned ones
(RUNNING, no live owner) with :meth:`RunQueue.claim_next`, which hands each run to exactly one
claimant, renews the leases of the runs it holds, and waits for work between claims
(:meth:`RunQueue.listen`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Protocol, TypeAlias, runtime_checkable

from returns.result import Result

from agentsm_fn.durable.errors import RunBusy, StoreFailure
from agentsm_fn.durable.stores.protocol.store import NewRun, RunRecord, RunStore

__all__ = ["RunQueue", "Wakeups"]

Wakeups: TypeAlias = Callable[[float], Awaitable[None]]
"""Wait until a run may have become claimable, or for at most the given number of seconds."""


@runtime_checkable
class RunQueue(RunStore, Protocol):
    """A store whose runs can be queued and claimed by workers.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> isinstance(SqliteStore.open(":memory:").unwrap(), RunQueue)
        True
    """

    def enqueue(self, run: NewRun) -> Result[None, StoreFailure]:
        """Store ``run`` as READY, owned by nobody: the next worker that serves its machine claims it."""
        ...

    def claim_next(
        self, machines: tuple[str, ...], owner: str, now: float, until: float
    ) -> Result[RunRecord | None, StoreFailure]:
        """Make ``owner`` the owner (lease ``until``) of one run of ``machines`` that is READY or orphaned.

        Oldest first; None if there is none. Two claimants never get the same run.
        """
        ...

    def renew(self, run_id: str, owner: str, until: float) -> Result[None, RunBusy | StoreFailure]:
        """Extend ``owner``'s lease on the run to ``until``; ``RunBusy`` if it no longer owns the run."""
        ...

    def listen(self) -> AbstractAsyncContextManager[Wakeups]:
        """Listen for runs that become claimable (enqueued, answered, let go) while the context is open.

        It gives the function a worker awaits between claims: it returns once such a run may
        have come (announced since the previous call too), or after ``timeout`` seconds.
        """
        ...
