"""A worker: a long-running process that claims queued and orphaned runs and runs them on asyncio.

:func:`serve` claims runs of the given durable machines from a :class:`~agentsm_fn.durable.queue.RunQueue`
(READY runs: enqueued, answered, let go; and orphaned ones: RUNNING with no live owner), up to
``concurrency`` at a time, each resumed with ``Durable.aresume`` under this process's owner. It
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
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from returns.result import Result

from agentsm_fn.durable._loading import release
from agentsm_fn.durable._owner import this_owner
from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.queue import RunQueue
from agentsm_fn.durable.runner import Durable, StoredRun

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
        >>> from agentsm_fn.durable.sqlite import SqliteStore
        >>> stop = asyncio.Event()
        >>> stop.set()
        >>> asyncio.run(serve(SqliteStore.open(":memory:").unwrap(), [], stop))
        0
    """
    by_name = {durable.name: durable for durable in durables}
    machines, owner = tuple(by_name), this_owner()
    lease = min((durable.lease for durable in durables), default=300.0)
    held: dict[asyncio.Task[Outcome], tuple[str, float]] = {}
    renewing = asyncio.create_task(_renew(store, owner, held, lease, settings.clock))
    taken = 0
    try:
        while not stop.is_set():
            while len(held) < settings.concurrency:
                now = settings.clock()
                claimed = store.claim_next(machines, owner, now, now + lease)
                record = claimed.value_or(None)
                if record is None:  # none, or the store failed: look again after the wait
                    break
                durable = by_name[record.machine]
                task = asyncio.create_task(durable.aresume(store, record.run_id))
                held[task] = (record.run_id, durable.lease)
                taken += 1
            await _next(store, stop, held, settings.poll)
            _finished(held, report)
        if held:
            await asyncio.wait(held, timeout=settings.grace)
        _finished(held, report)
        for task, (run_id, _) in list(held.items()):  # past the grace: back to the queue
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            release(store, run_id, owner, settings.clock())
            del held[task]
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
    return taken


async def _next(
    store: RunQueue, stop: asyncio.Event, held: dict[asyncio.Task[Outcome], tuple[str, float]], poll: float
) -> None:
    """Wait until there may be work: a notification or ``poll`` seconds, a held run ending, or ``stop``."""
    waiters = [asyncio.create_task(store.wait_for_work(poll)), asyncio.create_task(stop.wait())]
    try:
        await asyncio.wait([*waiters, *held], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
        await asyncio.gather(*waiters, return_exceptions=True)


def _finished(
    held: dict[asyncio.Task[Outcome], tuple[str, float]], report: Callable[[str, Outcome], None]
) -> None:
    for task in [task for task in held if task.done()]:
        run_id, _ = held.pop(task)
        if not task.cancelled():
            report(run_id, task.result())


async def _renew(
    store: RunQueue,
    owner: str,
    held: dict[asyncio.Task[Outcome], tuple[str, float]],
    lease: float,
    clock: Callable[[], float],
) -> None:
    """Every third of the lease, renew the lease of every run held (one that was lost stays lost)."""
    while True:
        await asyncio.sleep(lease / 3)
        for run_id, own_lease in list(held.values()):
            # A lease that was lost stays lost: the run's next write is refused and it stops there.
            store.renew(run_id, owner, clock() + own_lease)
