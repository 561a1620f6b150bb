"""Group commit for concurrent async runs, and the typed result of a fenced journal write (every store).

Under ``arun``, many runs share one store. Each journal write is still committed before
its run goes on (the run awaits it), but the writes that arrive while a transaction is
being written are committed together in the next one, each in its own savepoint (one
run's refused write does not undo another's). The transaction runs in a thread, so the
event loop goes on meanwhile. A commit costs one transaction per group instead of one
per effect. A store brings the function that writes a group (``run_group`` of
``durable.stores.sqlite._group`` or of ``durable.stores.postgres._group``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import RunBusy, StoreFailure

__all__ = ["LOST", "GroupCommit", "Groups", "after", "fenced", "owned"]

Op = TypeVar("Op")
"""One journal write, as the store that writes it knows it."""

Db = TypeVar("Db")
"""A store's connection."""

Written = Result[int, StoreFailure]
"""How many rows one write changed (0: the writer does not own the run), or why it failed."""


class GroupCommit(Generic[Op]):
    """Collects the journal writes of one event loop's runs and commits them a group at a time."""

    def __init__(self, write_group: Callable[[list[Op]], list[Written]]) -> None:
        self.write_group = write_group
        self.pending: list[tuple[Op, asyncio.Future[Written]]] = []
        self.writing = False
        self.task: asyncio.Task[None] | None = None  # kept: the loop holds tasks weakly

    async def submit(self, op: Op) -> Written:
        """Write ``op`` with the next group; return once that group committed."""
        future: asyncio.Future[Written] = asyncio.get_running_loop().create_future()
        self.pending.append((op, future))
        if not self.writing:
            self.writing = True
            self.task = asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self.pending:
                group, self.pending = self.pending, []
                try:
                    results = await asyncio.to_thread(self.write_group, [op for op, _ in group])
                except Exception as exc:  # the thread could not run: every write of the group failed
                    failure: Written = Failure(
                        StoreFailure(operation="commit effect", detail=f"{type(exc).__name__}: {exc}")
                    )
                    results = [failure] * len(group)
                for (_, future), result in zip(group, results, strict=True):
                    if not future.done():
                        future.set_result(result)
        finally:
            self.writing = False


class Groups(Generic[Op]):
    """One :class:`GroupCommit` per running event loop (those of closed loops are let go)."""

    def __init__(self, write_group: Callable[[list[Op]], list[Written]]) -> None:
        self.write_group = write_group
        self.by_loop: dict[int, tuple[asyncio.AbstractEventLoop, GroupCommit[Op]]] = {}

    def current(self) -> GroupCommit[Op]:
        """The group commit of the running event loop."""
        loop = asyncio.get_running_loop()
        group = self.by_loop.get(id(loop))
        if group is None or group[0] is not loop:
            # A loop seen for the first time: forget the groups of loops closed since (each asyncio.run
            # makes a new loop; without this a long process would keep every one it ever ran).
            for key in [key for key, (seen, _) in self.by_loop.items() if seen.is_closed()]:
                del self.by_loop[key]
            group = self.by_loop[id(loop)] = (loop, GroupCommit(self.write_group))
        return group[1]


def after(first: Callable[[Db], int], then: Callable[[Db], int]) -> Callable[[Db], int]:
    """One write of ``first`` then ``then``; if ``first`` writes no row (the fence held), ``then`` is not run.

    Example:
        >>> after(lambda db: 0, lambda db: 1)(None), after(lambda db: 1, lambda db: 1)(None)
        (0, 1)
    """
    return lambda db: then(db) if first(db) else 0


def fenced(
    done: Written, run_id: str, duplicate_run: str, duplicate_entry: str
) -> Result[None, RunBusy | StoreFailure]:
    """A journal write's result: RunBusy when nothing was written (not the owner) or the entry exists.

    ``duplicate_run`` and ``duplicate_entry`` are what the store's failure detail says when the
    run's id, or the run's entry ``seq``, is already stored.

    Example:
        >>> fenced(Success(0), "r1", "runs.id", "UNIQUE").failure().owner
        'another process (this one no longer owns the run)'
    """
    if isinstance(done, Failure):
        failure = done.failure()
        if duplicate_run in failure.detail:
            return Failure(
                StoreFailure(operation="create run", detail="a run with this id exists", run_id=run_id)
            )
        if duplicate_entry in failure.detail:
            return Failure(RunBusy(run_id=run_id, owner="another process (it wrote this entry first)"))
        return Failure(failure)
    return owned(done, run_id)


LOST = "another process (this one no longer owns the run)"
"""Who holds a run, as :class:`RunBusy` says it when a write of its former owner wrote nothing."""


def owned(done: Written, run_id: str) -> Result[None, RunBusy | StoreFailure]:
    """A write fenced by ownership: ``RunBusy`` when it wrote no row (the writer no longer owns the run).

    Example:
        >>> owned(Success(1), "r1"), owned(Success(0), "r1").failure().owner == LOST
        (<Success: None>, True)
    """
    if isinstance(done, Failure):
        return done
    return Success(None) if done.unwrap() else Failure(RunBusy(run_id=run_id, owner=LOST))
