"""A worker: a long-running process that claims queued and orphaned runs and runs them on asyncio.

:func:`serve` claims runs of the given durable machines from a
:class:`~agentsm_fn.durable.stores.protocol.queue.RunQueue` (READY runs: enqueued, answered, let go; and
orphaned ones: RUNNING with no live owner), up to ``concurrency`` at a time, each resumed with
``Durable.aresume`` under this process's owner (``inline=False``: the children a run waits on, and
the parent a child's end answers, are left queued for the workers). It
renews the leases of the runs it holds every third of the shortest lease, and between claims it
waits for the store to say there may be work (PostgreSQL: ``LISTEN``; SQLite: it polls).

When ``stop`` is set (``agentsm-runs worker`` sets it on SIGTERM or SIGINT) it claims nothing more;
the runs it holds go on until they finish or stop (a wait, a failure) for up to ``grace`` seconds;
those still running then are cancelled and let go (READY, where their journal stands), so the next
worker takes them up: an effect that was in flight then is unknown unless it is retry-safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import attrs
from returns.result import Result

from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.running._loading import release
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.program import StoredRun
from agentsm_fn.durable.stores.protocol.owners import this_owner
from agentsm_fn.durable.stores.protocol.queue import RunQueue, Wakeups

__all__ = ["WorkerSettings", "serve"]

Outcome = Result[StoredRun[enum.Enum, object], DurableError]
"""How one run the worker took up went."""


@attrs.frozen(kw_only=True)
class WorkerSettings:
    """How a worker runs.

    Example:
        >>> WorkerSettings(concurrency=8).poll
        0.5
    """

    concurrency: int = 4
    """The most runs held at once."""
    poll: float = 0.5
    """The longest wait between two looks at the queue (a store that notifies wakes the worker sooner)."""
    grace: float = 30.0
    """After ``stop``: how long the runs held may go on before they are let go."""
    clock: Callable[[], float] = time.time
    """The clock of leases (wall time: other hosts read them)."""


async def serve(
    store: RunQueue,
    durables: Sequence[Durable[Any, Any, Any]],
    stop: asyncio.Event,
    settings: WorkerSettings = WorkerSettings(),
    report: Callable[[str, Outcome], None] = lambda run_id, outcome: None,
) -> int:
    """Claim and run runs of ``durables`` until ``stop`` is set; the number of runs taken up.

    ``report`` is called with each run's id and how it went, as it ends or stops.

    Example:
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> stop = asyncio.Event()
        >>> stop.set()
        >>> asyncio.run(serve(SqliteStore.open(":memory:").unwrap(), [], stop))
        0
    """
    worker = _Worker(store, {durable.name: durable for durable in durables}, settings, report)
    renewing = asyncio.create_task(worker.renew())
    try:
        async with store.listen() as wakeups:  # listening before the first claim: no announcement is missed
            while not stop.is_set():
                await worker.claim()
                await worker.next(wakeups, stop)
        await worker.let_go()
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
    return worker.taken


class _Worker:
    """The runs one worker holds, and how it claims, renews and lets them go."""

    def __init__(
        self,
        store: RunQueue,
        by_name: dict[str, Durable[Any, Any, Any]],
        settings: WorkerSettings,
        report: Callable[[str, Outcome], None],
    ) -> None:
        self.store, self.by_name, self.settings, self.report = store, by_name, settings, report
        self.owner = this_owner()
        self.lease = min((durable.lease for durable in by_name.values()), default=300.0)
        self.held: dict[asyncio.Task[Outcome], tuple[str, float]] = {}
        self.taken = 0

    async def claim(self) -> None:
        """Claim and start runs while fewer than ``concurrency`` are held and there are runs to claim.

        A claim is a store round trip: it runs in a thread, so the held runs go on meanwhile.
        """
        while len(self.held) < self.settings.concurrency:
            now = self.settings.clock()
            claimed = await asyncio.to_thread(
                self.store.claim_next, tuple(self.by_name), self.owner, now, now + self.lease
            )
            record = claimed.value_or(None)
            if record is None:  # none, or the store failed: look again after the wait
                return
            durable = self.by_name[record.machine]
            task = asyncio.create_task(durable.aresume(self.store, record.run_id, inline=False))
            self.held[task] = (record.run_id, durable.lease)
            self.taken += 1

    async def next(self, wakeups: Wakeups, stop: asyncio.Event) -> None:
        """Wait until there may be work (announced, or ``poll`` seconds on), a held run ends, or ``stop``."""
        waiting = _awaited(wakeups(self.settings.poll))
        waiters = [asyncio.create_task(waiting), asyncio.create_task(stop.wait())]
        try:
            await asyncio.wait([*waiters, *self.held], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiter in waiters:
                waiter.cancel()
            await asyncio.gather(*waiters, return_exceptions=True)
        self.finished()

    def finished(self) -> None:
        """Report and forget the held runs that ended."""
        for task in [task for task in self.held if task.done()]:
            run_id, _ = self.held.pop(task)
            if not task.cancelled():
                self.report(run_id, task.result())

    async def let_go(self) -> None:
        """Give the held runs ``grace`` seconds to end; cancel the rest and put them back in the queue."""
        if self.held:
            await asyncio.wait(self.held, timeout=self.settings.grace)
        self.finished()
        for task, (run_id, _) in list(self.held.items()):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await asyncio.to_thread(release, self.store, run_id, self.owner, self.settings.clock())
            del self.held[task]

    async def renew(self) -> None:
        """Every third of the lease, renew the lease of every run held (one that was lost stays lost)."""
        while True:
            await asyncio.sleep(self.lease / 3)
            for run_id, own_lease in list(self.held.values()):
                # A lease that was lost stays lost: the run's next write is refused and it stops there.
                until = self.settings.clock() + own_lease
                await asyncio.to_thread(self.store.renew, run_id, self.owner, until)


async def _awaited(waiting: Awaitable[None]) -> None:
    await waiting
